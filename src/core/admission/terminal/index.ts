/**
 * Admission of terminal tasks: the terminal gates (named after the program gates they mirror),
 * their control agents, and the pipeline through the shared gate loop.
 * @module
 */
export * from "./terminal-admission.js";
export * from "./terminal-gate.js";
export * from "./terminal-policies.js";
export * from "./terminal-executable-gate.js";
export * from "./terminal-determinism-gate.js";
export * from "./terminal-oracle-gate.js";
export * from "./terminal-controls-gate.js";
export * from "./terminal-hint-gate.js";
export * from "./terminal-novelty-gate.js";
