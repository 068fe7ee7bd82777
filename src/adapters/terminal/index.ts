/**
 * Terminal environments' adapter: Harbor task folders read as tasks (the honoured Dockerfile
 * subset), Debian roots built by mmdebstrap, and the jail every episode runs in.
 * @module
 */
export * from "./harbor-task.js";
export * from "./bounded-text.js";
export * from "./dockerfile.js";
export * from "./root-filesystem.js";
export * from "./task-folder.js";
export * from "./terminal-jail.js";
export * from "./terminal-bench.js";
