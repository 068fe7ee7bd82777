import type { ScenarioSkillStep, Store } from "../../spec/index.js";

/** The pool's scenario–skill sequences: every lineage's seed and every stored generation. */
export function poolSequences(store: Store): ScenarioSkillStep[][] {
  const sequences: ScenarioSkillStep[][] = [];
  for (const lineage of store.listLineages()) {
    sequences.push([...lineage.sequence.steps]);
    for (const generation of store.listGenerations(lineage.id)) sequences.push([...generation.sequence.steps]);
  }
  return sequences;
}
