/**
 * Reward functions.
 * @module
 */
export * from "./designer-reward.js";
