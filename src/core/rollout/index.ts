/**
 * Playing episodes: the episode loop, the baseline policies and the answer in a reply.
 * @module
 */
export * from "./policy.js";
export * from "./play-episode.js";
export * from "./baseline-policies.js";
export * from "./episode-jobs.js";
export * from "./answer-extraction.js";
export * from "./tool-calls.js";
export * from "./reply-step.js";
