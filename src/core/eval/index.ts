/**
 * Held-out evaluation: Reasoning Gym questions and held-out environments, results with intervals.
 * @module
 */
export * from "./intervals.js";
export * from "./summarize.js";
export * from "./compare.js";
export * from "./time-limited-model.js";
export * from "./question-items.js";
export * from "./environment-items.js";
export * from "./heldout-seeds.js";
export * from "./levels.js";
export * from "./run-evaluation.js";
