import type { OpenModelOptions } from "../adapters/llm/index.js";
import type { Config } from "../config/index.js";

/**
 * The {@link OpenModelOptions} a config asks for: `model.contextSize`, `model.threads`,
 * `model.timeoutMs`, `model.samplingTopK`, and `model.sequences` (0 = `solver.concurrency`, so every Solver episode
 * in flight samples on its own llama.cpp sequence).
 */
export function modelOptionsOf(config: Config): OpenModelOptions {
  return {
    contextSize: config.model.contextSize,
    threads: config.model.threads,
    timeoutMs: config.model.timeoutMs,
    sequences: config.model.sequences || config.solver.concurrency,
    samplingTopK: config.model.samplingTopK,
  };
}
