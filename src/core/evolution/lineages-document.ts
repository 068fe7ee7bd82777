import { renameSync, writeFileSync } from "node:fs";
import type { EvolutionDirection, EvolutionEffort, Store, Verdict } from "../../spec/index.js";

/** One generation in `lineages.json`. */
export interface LineageDocumentGeneration {
  /** Content id of the child environment. */
  readonly id: string;
  /** Content id of its parent (the seed for generation 1). */
  readonly parent: string;
  readonly direction: EvolutionDirection;
  readonly effort: EvolutionEffort;
  /** Off-policy difficulty D of the child. */
  readonly difficulty: number;
  /** Oracle, invalid-test and rubric verdicts. */
  readonly validations: readonly Verdict[];
}

/** One lineage in `lineages.json`: the seed's content id and its generations in order. */
export interface LineageDocument {
  readonly seed: string;
  readonly generations: readonly LineageDocumentGeneration[];
}

/** File name of the lineage list an evolution run writes into its directory. */
export const LINEAGES_FILE = "lineages.json";

/** Every lineage of a store in the `lineages.json` shape `{ seed, generations: [{ id, parent, direction, effort, difficulty, validations }] }`. */
export function lineagesDocument(store: Store): LineageDocument[] {
  return store.listLineages().map((lineage) => ({
    seed: lineage.seedId,
    generations: store.listGenerations(lineage.id).map((generation) => ({
      id: generation.environmentId,
      parent: generation.parentId,
      direction: generation.direction,
      effort: generation.effort,
      difficulty: generation.difficulty.total,
      validations: generation.validations,
    })),
  }));
}

/** Writes {@link lineagesDocument} to `path` atomically (temp file + rename). */
export function writeLineagesDocument(store: Store, path: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(lineagesDocument(store), null, 2)}\n`);
  renameSync(temporary, path);
}
