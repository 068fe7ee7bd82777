/**
 * Reading and writing environment packages as folders and JSON documents.
 * @module
 */
export * from "./package-files.js";
export * from "./seeds.js";
