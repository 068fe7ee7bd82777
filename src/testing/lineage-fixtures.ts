import { SqliteStore } from "../adapters/store/index.js";
import { samplePackage } from "../adapters/store/store.contract.js";
import { packageId, type GenerationRecord, type Store } from "../spec/index.js";

// Lineage fixtures shared by the curriculum and self-play tests (not shipped in the public API).

const difficulty = { length: 1, scenarioSurprise: 0, skillSurprise: 0, total: 1 };
const sequence = { steps: [{ scenario: "quiz", skill: "recall" }], source: "plan" as const };

/** A store with one lineage: seed samplePackage(base) and `generations` children samplePackage(base + 1 …). */
export function lineageStore(generations: number, base = 0, store: Store = new SqliteStore(":memory:")): Store {
  const seed = samplePackage(base);
  const lineageId = `lin-${base}`;
  store.addLineage({ id: lineageId, seedId: packageId(seed), seedName: seed.manifest.name, seed, sequence, difficulty, createdAt: "2026-11-29T00:00:00.000Z" });
  store.addEnvironment({ id: packageId(seed), package: seed, round: null, scores: null });
  let parentId = packageId(seed);
  for (let generation = 1; generation <= generations; generation += 1) {
    const child = samplePackage(base + generation);
    const record: GenerationRecord = {
      lineageId,
      generation,
      environmentId: packageId(child),
      parentId,
      direction: "length",
      effort: "low",
      plan: { summary: "s", steps: sequence.steps },
      patch: "",
      validations: [],
      admission: [],
      sequence,
      difficulty,
      createdAt: "2026-11-29T00:00:00.000Z",
    };
    store.saveGeneration(record, { id: record.environmentId, package: child, round: null, scores: null });
    parentId = record.environmentId;
  }
  return store;
}
