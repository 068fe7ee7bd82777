/**
 * Run stores.
 * @module
 */
export { SqliteStore } from "./sqlite-store.js";
export { SqliteEvalStore } from "./sqlite-eval-store.js";
