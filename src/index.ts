/**
 * envforge: self-play environment synthesis. One language-model policy plays a
 * Designer that writes executable environments and a Solver that learns to act
 * in them. This is the programmatic API; the `envforge` CLI is a thin shell over it.
 * @module
 */
export * from "./spec/index.js";
export * from "./config/index.js";
export * from "./core/rollout/index.js";
export * from "./core/rewards/index.js";
export * from "./core/advantages/index.js";
export * from "./core/admission/index.js";
export * from "./core/selfplay/index.js";
export * from "./core/evolution/index.js";
export * from "./core/holdout/index.js";
export * from "./core/eval/index.js";
export * from "./adapters/sandbox/index.js";
export * from "./adapters/python-inspector/index.js";
export * from "./adapters/llm/index.js";
export * from "./adapters/store/index.js";
export * from "./adapters/trainer/index.js";
export * from "./adapters/corpus/index.js";
export * from "./adapters/package-files/index.js";
export * from "./adapters/suites/reasoning-gym/index.js";
export * from "./server/index.js";
export * from "./dashboard/index.js";
