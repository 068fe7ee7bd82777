/**
 * The holdout split of a run's pool: environments evaluated and never sampled for training.
 * @module
 */
export * from "./holdout-split.js";
