import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../adapters/store/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { packageId } from "../../spec/index.js";
import { lineageStore } from "../../testing/lineage-fixtures.js";
import { advanceFrontiers, frontierEnvironments, frontierGenerations, frontierPool, importLineages, releases, type FrontierProbe } from "./frontier-scheduler.js";

const settings = { rollouts: 8, releaseWins: 6 };

/** A simulated probe: wins scripted per call, in order; records which generation it probed. */
function simulated(wins: readonly number[]): FrontierProbe & { probed: number[] } {
  let call = 0;
  const probed: number[] = [];
  return Object.assign(
    async (_environmentId: string, _lineageId: string, generation: number) => {
      probed.push(generation);
      return { wins: wins[call++] ?? 0, rollouts: 8 };
    },
    { probed },
  );
}

describe("releases", () => {
  it("releases at 6/8 and above, holds below", () => {
    expect([0, 5, 6, 7, 8].map((wins) => releases(wins, 8, settings))).toEqual([false, false, true, true, true]);
    // the same rate for another rollout count
    expect(releases(3, 4, settings)).toBe(true);
    expect(releases(2, 4, settings)).toBe(false);
    expect(releases(0, 0, settings)).toBe(false);
  });
});

describe("frontier scheduler with simulated pass rates", () => {
  it("holds the frontier below 6/8 and releases the next generation at 6/8", async () => {
    const store = lineageStore(3);
    const probe = simulated([5, 6, 8]);
    await advanceFrontiers(store, 1, probe, settings);
    expect(frontierEnvironments(store).map((record) => record.package.manifest.name)).toEqual(["sample-0"]);
    await advanceFrontiers(store, 2, probe, settings);
    expect(frontierEnvironments(store).map((record) => record.package.manifest.name)).toEqual(["sample-1"]);
    await advanceFrontiers(store, 3, probe, settings);
    expect(frontierEnvironments(store).map((record) => record.package.manifest.name)).toEqual(["sample-2"]);
    expect(probe.probed).toEqual([0, 0, 1]);
    expect(store.listFrontierProbes().map((record) => [record.round, record.generation, record.wins, record.released])).toEqual([
      [1, 0, 5, false],
      [2, 0, 6, true],
      [3, 1, 8, true],
    ]);
  });

  it("never moves past the last generation and stops probing there", async () => {
    const store = lineageStore(1);
    const probe = simulated([8, 8, 8]);
    for (const round of [1, 2, 3]) await advanceFrontiers(store, round, probe, settings);
    expect(probe.probed).toEqual([0]);
    expect(frontierEnvironments(store).map((record) => record.package.manifest.name)).toEqual(["sample-1"]);
  });

  it("resumes from the stored probes: same frontier, no second probe in a round", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-frontier-")), "store.db");
    const first = lineageStore(3, 0, new SqliteStore(path));
    await advanceFrontiers(first, 1, simulated([7]), settings);
    first.close();
    const reopened = new SqliteStore(path);
    const again = simulated([8]);
    expect(await advanceFrontiers(reopened, 1, again, settings)).toEqual([]);
    expect(again.probed).toEqual([]);
    expect(frontierEnvironments(reopened).map((record) => record.package.manifest.name)).toEqual(["sample-1"]);
    await advanceFrontiers(reopened, 2, again, settings);
    expect(again.probed).toEqual([1]);
    reopened.close();
  });

  it("keeps one frontier per lineage", async () => {
    const store = lineageStore(2, 0);
    lineageStore(2, 10, store);
    await advanceFrontiers(store, 1, simulated([6, 2]), settings);
    expect(frontierEnvironments(store).map((record) => record.package.manifest.name)).toEqual(["sample-1", "sample-10"]);
    const frontiers = frontierGenerations([{ lineageId: "lin-0", environmentIds: ["a", "b", "c"] }], store.listFrontierProbes());
    expect(frontiers.get("lin-0")).toBe(1);
  });
});

describe("frontierPool / importLineages", () => {
  it("falls back to every environment when the store has no lineages", async () => {
    const store = new SqliteStore(":memory:");
    store.addEnvironment({ id: packageId(samplePackage(5)), package: samplePackage(5), round: null, scores: null });
    const probe: FrontierProbe = async () => {
      throw new Error("a store without lineages is never probed");
    };
    const pool = await frontierPool({ store, round: 1, probe, settings });
    expect(pool.map((record) => record.package.manifest.name)).toEqual(["sample-5"]);
  });

  it("copies lineages with their environments into a run's store, once", () => {
    const from = lineageStore(2);
    const into = new SqliteStore(":memory:");
    expect(importLineages(from, into)).toBe(1);
    expect(importLineages(from, into)).toBe(0);
    expect(into.listGenerations("lin-0")).toEqual(from.listGenerations("lin-0"));
    expect(into.listEnvironments().map((record) => record.package.manifest.name).sort()).toEqual(["sample-0", "sample-1", "sample-2"]);
  });
});
