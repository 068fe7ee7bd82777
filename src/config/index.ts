/**
 * Configuration: the zod schema with documented defaults, and loading.
 * @module
 */
export * from "./schema.js";
export * from "./load-config.js";
