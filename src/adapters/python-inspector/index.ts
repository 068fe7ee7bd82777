/**
 * Outlines Python sources without running them (for the static admission gate).
 * @module
 */
export * from "./python-inspector.js";
