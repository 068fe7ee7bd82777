/**
 * OpenEnv environment packages as envforge environments: the reader of a package folder, and the
 * session that plays its environment class in the terminal jail (docs/openenv-import.md).
 * @module
 */
export * from "./read-openenv-package.js";
export * from "./openenv-session.js";
export * from "./openenv-package.js";
