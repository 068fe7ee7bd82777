import { describe, expect, it } from "vitest";
import { SqliteStore } from "../adapters/store/index.js";
import { ServeRequestError, packageId, type EnvPackage } from "../spec/index.js";
import { servedEntries, testPackage, ECHO_ENV } from "../testing/serve-fixtures.js";
import { EnvironmentCatalog, seedCatalog, storeCatalog } from "./catalog.js";

function child(parent: EnvPackage, name: string): EnvPackage {
  return testPackage(name, `${ECHO_ENV}\n# ${name}\n`, { provenance: { origin: "evolution", parentId: packageId(parent), generation: 1, createdAt: "2026-12-01T00:00:00.000Z" } });
}

describe("EnvironmentCatalog", () => {
  it("resolves ids, unique id prefixes and names; refuses unknown and ambiguous references with typed errors", () => {
    const a = testPackage("alpha", ECHO_ENV);
    const b = testPackage("alpha", `${ECHO_ENV}\n# another alpha\n`);
    const catalog = new EnvironmentCatalog(servedEntries([a, b, testPackage("beta", `${ECHO_ENV}\n# beta\n`)]));
    expect(catalog.resolve(packageId(a)).package).toBe(a);
    expect(catalog.resolve(packageId(a).slice(0, 12)).package).toBe(a);
    expect(catalog.resolve("beta").name).toBe("beta");
    const ambiguous = (() => {
      try {
        catalog.resolve("alpha");
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(ambiguous).toBeInstanceOf(ServeRequestError);
    expect((ambiguous as ServeRequestError).problem).toBe("ambiguous_environment");
    expect(() => catalog.resolve("gamma")).toThrow(/no environment "gamma"/);
  });

  it("serves the ten seeds by default", () => {
    const catalog = seedCatalog();
    expect(catalog.size).toBe(10);
    expect(catalog.list({ interaction: "single-turn" }).total).toBe(5);
    expect(catalog.frontier()).toBeNull();
  });

  it("reads a store: scores, rounds, lineage positions and the frontier scheduler's set", () => {
    const store = new SqliteStore(":memory:");
    const seed = testPackage("root", ECHO_ENV);
    const first = child(seed, "root-child");
    const scores = { plays: 4, winRateNoHint: 0.25, winRateHint: 0.75, meanReturnNoHint: 0.25, meanReturnHint: 0.75, regret: 0.5, designerReward: 0.7 };
    store.addEnvironment({ id: packageId(seed), package: seed, round: null, scores: null });
    store.addEnvironment({ id: packageId(first), package: first, round: 2, scores });
    const sequence = { steps: [{ scenario: "tests", skill: "testing" }], source: "manifest" as const };
    const difficulty = { length: 1, scenarioSurprise: 0, skillSurprise: 0, total: 1 };
    store.addLineage({ id: "lin-root", seedId: packageId(seed), seedName: "root", seed, sequence, difficulty, createdAt: "2026-12-01T00:00:00.000Z" });
    store.saveGeneration(
      {
        lineageId: "lin-root",
        generation: 1,
        environmentId: packageId(first),
        parentId: packageId(seed),
        direction: "length",
        effort: "low",
        plan: { summary: "longer", steps: sequence.steps },
        patch: "",
        validations: [],
        admission: [],
        sequence,
        difficulty,
        createdAt: "2026-12-01T00:00:00.000Z",
      },
      { id: packageId(first), package: first, round: 2, scores },
    );
    let catalog = storeCatalog(store);
    expect(catalog.resolve("root-child")).toMatchObject({ round: 2, scores, lineage: { lineageId: "lin-root", generation: 1, parentId: packageId(seed) } });
    expect(catalog.list({ lineage: "lin-root" }).total).toBe(2);
    expect(catalog.list({ minRegret: 0.4 }).environments.map((environment) => environment.name)).toEqual(["root-child"]);
    expect(catalog.frontier()?.map((environment) => environment.name)).toEqual(["root"]);
    store.saveFrontierProbe({ lineageId: "lin-root", generation: 0, round: 1, rollouts: 8, wins: 7, released: true });
    catalog = storeCatalog(store);
    expect(catalog.frontier()?.map((environment) => environment.name)).toEqual(["root-child"]);
    store.close();
  });

  it("reads each levelled environment's level window from a run store, with the run's own controller settings", () => {
    const store = new SqliteStore(":memory:");
    const levelled = testPackage("levelled", ECHO_ENV, { levels: { count: 5, description: "more" } });
    const plain = testPackage("plain", `${ECHO_ENV}\n# plain\n`);
    const id = packageId(levelled);
    store.addEnvironment({ id, package: levelled, round: null, scores: null });
    store.addEnvironment({ id: packageId(plain), package: plain, round: null, scores: null });
    store.setMeta("config", { levels: { minSamples: 2 } });
    store.beginRound(1);
    const won = { seed: 1, level: 0, initialObservation: "", turns: [], return: 1, won: true, terminated: true, truncated: false };
    store.saveSolverPhase(1, [0, 1].map(() => ({ round: 1, environmentId: id, role: "solver" as const, hint: false, policyVersion: 0, episode: won })));
    const catalog = storeCatalog(store);
    // 2 of 2 at level 0 with minSamples 2 raise the window to [0, 1]
    expect(catalog.resolve("levelled").levelWindow).toEqual({ low: 0, high: 1 });
    expect(catalog.resolve("plain").levelWindow).toBeNull();
    store.close();
  });
});
