/**
 * Reasoning Gym as a held-out question suite: the Python bridge, SPADE's buckets and the
 * paper's hard parameters.
 * @module
 */
export * from "./reasoning-gym-suite.js";
export * from "./buckets.js";
export * from "./default-tasks.js";
