/**
 * Sandbox backends for environment programs.
 * @module
 */
export { BwrapSandbox, RUNNER_PATH, type BwrapSandboxOptions } from "./bwrap-sandbox.js";
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
