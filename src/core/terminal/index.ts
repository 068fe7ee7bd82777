/**
 * Terminal environments in the core: how a reply becomes a command, a terminal task as an
 * episode session and as a package, and a sandbox that plays both kinds.
 * @module
 */
export * from "./terminal-actions.js";
export * from "./terminal-environment.js";
export * from "./terminal-package.js";
export * from "./terminal-sandbox.js";
export * from "./parse-terminal-design.js";
export * from "./terminal-designer-prompt.js";
