/**
 * Admission: independent gates run cheapest first.
 * @module
 */
export * from "./gate.js";
export * from "./static-gate.js";
export * from "./executable-gate.js";
export * from "./policy-gates.js";
export * from "./pipeline.js";
