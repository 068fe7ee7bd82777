/**
 * The self-play loop: Solver plays, Designer steps, rounds and runs.
 * @module
 */
export * from "./progress.js";
export * from "./designer-prompt.js";
export * from "./parse-design.js";
export * from "./solver-policy.js";
export * from "./solver-rollouts.js";
export * from "./lazy-model.js";
export * from "./sampling.js";
export * from "./calibrate.js";
export * from "./design-step.js";
export * from "./design-funnel.js";
export * from "./repair-message.js";
export * from "./round-report.js";
export * from "./round.js";
export * from "./run-selfplay.js";
export * from "./coevolution.js";
export * from "./off-policy-correction.js";
export * from "./training-checkpoints.js";
export * from "./training-step.js";
export * from "./logprob-probe.js";
export * from "./signal-figures.js";
