import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../sandbox/index.js";
import { doNothingPolicy, oraclePolicy, playEpisode, randomPolicy, seededRandom, type Policy } from "../../core/rollout/index.js";
import { staticLevel } from "../../core/curriculum/index.js";
import type { EnvPackage, Episode } from "../../spec/index.js";
import { loadSeedPackages } from "./seeds.js";

const SEEDS = Array.from({ length: 20 }, (_, index) => index);
const sandbox = new BwrapSandbox();
afterAll(() => sandbox.close());

/** Plays seeds 0..19 at the family's static level (its size before levels; level 0 is smaller by design). */
async function playAll(pkg: EnvPackage, makePolicy: (session: Parameters<typeof oraclePolicy>[0], seed: number) => Policy): Promise<Episode[]> {
  const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: pkg.oracleSource });
  if (opened.kind !== "ok") throw new Error(`${pkg.manifest.name} failed to load: ${opened.message}`);
  const episodes: Episode[] = [];
  for (const seed of SEEDS) episodes.push(await playEpisode(opened.value, pkg.manifest, seed, makePolicy(opened.value, seed), { level: staticLevel(pkg.manifest) }));
  await opened.value.close();
  return episodes;
}

const seeds = loadSeedPackages();

describe("seed environments", () => {
  it("ships ten seeds: at least four single-turn and four multi-turn", () => {
    expect(seeds).toHaveLength(10);
    expect(seeds.filter((pkg) => pkg.manifest.interaction === "single-turn").length).toBeGreaterThanOrEqual(4);
    expect(seeds.filter((pkg) => pkg.manifest.interaction === "multi-turn").length).toBeGreaterThanOrEqual(4);
    for (const pkg of seeds) expect(pkg.manifest.provenance.origin).toBe("seed");
  });

  for (const pkg of seeds) {
    describe(pkg.manifest.name, () => {
      it("the oracle reaches full reward on 20 seeds", async () => {
        const episodes = await playAll(pkg, (session) => oraclePolicy(session));
        for (const episode of episodes) {
          expect(episode.failure, JSON.stringify(episode.failure)).toBeUndefined();
          expect(episode.return).toBe(pkg.manifest.rewardRange[1]);
          expect(episode.won).toBe(true);
        }
      });

      it("a do-nothing policy never wins", async () => {
        const episodes = await playAll(pkg, () => doNothingPolicy);
        expect(episodes.filter((episode) => episode.won)).toHaveLength(0);
      });

      it("a random policy wins at most one of 20 seeds", async () => {
        const episodes = await playAll(pkg, (_session, seed) => randomPolicy(seededRandom(1000 + seed)));
        expect(episodes.filter((episode) => episode.won).length).toBeLessThanOrEqual(1);
      });

      it("different seeds give different instances", async () => {
        const episodes = await playAll(pkg, () => doNothingPolicy);
        expect(new Set(episodes.map((episode) => episode.initialObservation)).size).toBeGreaterThanOrEqual(15);
      });
    });
  }
});
