/**
 * Reward functions: the Solver reward of an episode and the Designer reward
 * modes (SPADE regret blend by default).
 * @module
 */
export * from "./designer-reward.js";
export * from "./designer-reward-modes.js";
export * from "./learning-potential.js";
export * from "./solver-reward.js";
