/**
 * Run stores.
 * @module
 */
export { SqliteStore } from "./sqlite-store.js";
