import type { EnvPackage, ScenarioSkillStep, Store } from "../../spec/index.js";

/** The pool's scenario–skill sequences: every lineage's seed and every stored generation. */
export function poolSequences(store: Store): ScenarioSkillStep[][] {
  const sequences: ScenarioSkillStep[][] = [];
  for (const lineage of store.listLineages()) {
    sequences.push([...lineage.sequence.steps]);
    for (const generation of store.listGenerations(lineage.id)) sequences.push([...generation.sequence.steps]);
  }
  return sequences;
}

/**
 * The environments an evolved child must be novel against (admission's
 * novelty gate): every lineage's seed and every stored environment, except the
 * child's own parent. A child is an edit of its parent by design, so text and
 * behaviour close to the parent are expected; the lineage's validations already
 * require the child to differ from it (its plan and rubric review).
 */
export function admissionPool(store: Store, parentId: string): EnvPackage[] {
  const pool = new Map<string, EnvPackage>();
  for (const lineage of store.listLineages()) pool.set(lineage.seedId, lineage.seed);
  for (const record of store.listEnvironments()) pool.set(record.id, record.package);
  pool.delete(parentId);
  return [...pool.values()];
}
