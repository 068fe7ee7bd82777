/**
 * Role-specific RL math after the rewards: group-relative advantages, Tinker
 * datums from token trajectories, truncated importance weights for off-policy
 * data, the loss configuration, and per-step diagnostics. Pure functions.
 * @module
 */
export * from "./training-data-error.js";
export * from "./group-key.js";
export * from "./compute-advantages.js";
export * from "./trajectory.js";
export * from "./conversation-trajectories.js";
export * from "./build-datum.js";
export * from "./off-policy.js";
export * from "./diagnostics.js";
export * from "./solver-signal.js";
