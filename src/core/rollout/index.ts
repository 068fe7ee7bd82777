/**
 * Playing episodes: the episode loop and the baseline policies.
 * @module
 */
export * from "./policy.js";
export * from "./play-episode.js";
export * from "./baseline-policies.js";
export * from "./episode-jobs.js";
