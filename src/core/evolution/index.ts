/**
 * Environment evolution (off-policy): scenario–skill sequences, difficulty,
 * directions and effort, the planning and modification loops, lineages and
 * the seed funnel (the frontier scheduler is in `core/curriculum`).
 * @module
 */
export * from "./completion-json.js";
export * from "./difficulty.js";
export * from "./oracle-trace.js";
export * from "./sequence.js";
export * from "./directions.js";
export * from "./rubrics.js";
export * from "./reviewer.js";
export * from "./planning-loop.js";
export * from "./child-package.js";
export * from "./validations.js";
export * from "./grammars.js";
export * from "./modification-loop.js";
export * from "./pool.js";
export * from "./generation-attempt.js";
export * from "./lineage-runner.js";
export * from "./lineages-document.js";
export * from "./seed-funnel.js";
export * from "./settings.js";
export * from "./learn-rubric.js";
export * from "./model-reference.js";
export * from "./terminal-child.js";
export * from "./terminal-evolution.js";
export * from "./terminal-lineage.js";
