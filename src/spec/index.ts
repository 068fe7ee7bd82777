/**
 * The spec layer: interfaces and data types every other layer builds on.
 * @module
 */
export * from "./errors.js";
export * from "./verdict.js";
export * from "./verdict-reasons.js";
export * from "./env-package.js";
export * from "./language-model.js";
export * from "./sandbox.js";
export * from "./episode.js";
export * from "./trainer.js";
export * from "./corpus.js";
export * from "./report.js";
export * from "./lineage.js";
export * from "./store.js";
export * from "./jobs.js";
export * from "./weight-sync.js";
export * from "./evaluation.js";
export * from "./export-format.js";
export * from "./tool-call.js";
export * from "./bfcl.js";
export * from "./terminal.js";
export * from "./openenv.js";
