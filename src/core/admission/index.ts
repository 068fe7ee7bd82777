/**
 * Admission: independent gates run cheapest first, each returning a typed
 * verdict; the pipeline stops at the first reject.
 * @module
 */
export * from "./gate.js";
export * from "./source-inspector.js";
export * from "./probe-episodes.js";
export * from "./transcript.js";
export * from "./reused-instance.js";
export * from "./static-gate.js";
export * from "./executable-gate.js";
export * from "./determinism-gate.js";
export * from "./oracle-gate.js";
export * from "./negative-controls-gate.js";
export * from "./scorer-contract-gate.js";
export * from "./hint-readings.js";
export * from "./hint-gate.js";
export * from "./level-views.js";
export * from "./levels-gate.js";
export * from "./minhash.js";
export * from "./behaviour-fingerprint.js";
export * from "./novelty-gate.js";
export * from "./decontamination-gate.js";
export * from "./self-review-gate.js";
export * from "./calibration-gate.js";
export * from "./pipeline.js";
export * from "./evaluation.js";
export * from "./terminal/index.js";
