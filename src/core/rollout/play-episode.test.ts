import { afterAll, describe, expect, it } from "vitest";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import type { EnvPackage, Episode } from "../../spec/index.js";
import { solverRewardOfEpisode } from "../rewards/index.js";
import { doNothingPolicy, oraclePolicy } from "./baseline-policies.js";
import { playEpisode } from "./play-episode.js";
import type { Policy } from "./policy.js";

// Real sandbox, real seed environments; the policies are the oracle and fixed strings.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());
const seeds = loadSeedPackages();

function fixed(text: string): Policy {
  return { name: `fixed:${text}`, act: async () => ({ text }) };
}

async function play(pkg: EnvPackage, policy: Policy | "oracle", maxTurns = 3): Promise<Episode> {
  const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: policy === "oracle" ? pkg.oracleSource : null });
  if (opened.kind !== "ok") throw new Error(`${pkg.manifest.name}: ${opened.message}`);
  try {
    return await playEpisode(opened.value, pkg.manifest, 7, policy === "oracle" ? oraclePolicy(opened.value) : policy, policy === "oracle" ? {} : { maxTurns });
  } finally {
    await opened.value.close();
  }
}

describe("invalid actions (info.invalid_action)", () => {
  it("ships ten seeds", () => {
    expect(seeds).toHaveLength(10);
  });

  it.each(seeds.map((pkg) => [pkg.manifest.name, pkg] as const))("%s marks a reply it cannot read, and no turn of its oracle", async (_name, pkg) => {
    for (const policy of [fixed("I am not sure what to do here."), doNothingPolicy]) {
      const refused = await play(pkg, policy);
      expect(refused.turns.length).toBeGreaterThan(0);
      expect(refused.turns.every((turn) => turn.invalidAction === true)).toBe(true);
      // the default config penalty (−0.02 per marked turn) lands in the Solver reward
      expect(solverRewardOfEpisode(refused, pkg.manifest.rewardRange).penalty).toBeCloseTo(-0.02 * refused.turns.length, 12);
    }
    const solved = await play(pkg, "oracle");
    expect(solved.won).toBe(true);
    expect(solved.turns.some((turn) => "invalidAction" in turn)).toBe(false);
  });

  const seed = (name: string) => seeds.find((pkg) => pkg.manifest.name === name) as EnvPackage;

  it.each([
    ["shortest-path", "Answer: 99999"],
    ["subset-sum", "Answer: 1, 2"],
    ["graph-coloring", "A=1,B=1,C=1,D=1,E=1,F=1,G=1,H=1"],
  ])("%s leaves a readable but wrong answer (%s) unmarked, on each of level 0's three tries", async (name, answer) => {
    const episode = await play(seed(name), fixed(answer));
    expect(episode.won).toBe(false);
    expect(episode.turns).toHaveLength(3);
    for (const turn of episode.turns) expect(turn).not.toHaveProperty("invalidAction");
    expect(episode.terminated).toBe(true);
  });

  it.each([
    ["subset-sum", "Answer: 11, 12"],
    ["subset-sum", "Answer: 2, 2"],
    ["graph-coloring", "A=1,B=2,C=9,D=1,E=2,F=1,G=2,H=1"],
    ["register-machine", "add 999"],
  ])("%s marks an answer in the format that is not allowed (%s)", async (name, answer) => {
    const episode = await play(seed(name), fixed(answer), 1);
    expect(episode.turns[0]?.invalidAction).toBe(true);
  });
});

describe("levels", () => {
  const levelled = seeds.filter((pkg) => pkg.manifest.levels !== undefined);

  it("every seed is a levelled family of at least six levels naming its static level", () => {
    expect(levelled).toHaveLength(10);
    for (const pkg of levelled) {
      expect(pkg.manifest.levels?.count).toBeGreaterThanOrEqual(6);
      expect(pkg.manifest.difficulty["staticLevel"]).toBeTypeOf("number");
    }
  });

  it.each(levelled.map((pkg) => [pkg.manifest.name, pkg] as const))("%s builds a different instance at its top level, the oracle wins at both ends, and the episode records its level", async (_name, pkg) => {
    const top = (pkg.manifest.levels?.count ?? 1) - 1;
    const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: pkg.oracleSource });
    if (opened.kind !== "ok") throw new Error(`${pkg.manifest.name}: ${opened.message}`);
    try {
      const low = await playEpisode(opened.value, pkg.manifest, 11, oraclePolicy(opened.value), { level: 0 });
      const high = await playEpisode(opened.value, pkg.manifest, 11, oraclePolicy(opened.value), { level: top });
      expect([low.level, high.level, low.won, high.won]).toEqual([0, top, true, true]);
      expect(high.initialObservation).not.toBe(low.initialObservation);
      await expect(playEpisode(opened.value, pkg.manifest, 11, oraclePolicy(opened.value), { level: top + 1 })).rejects.toThrow(`level ${top + 1} is outside ${pkg.manifest.name}'s levels: 0..${top}`);
    } finally {
      await opened.value.close();
    }
  });
});
