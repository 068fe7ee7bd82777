import type { OpenModelOptions } from "../adapters/llm/index.js";
import type { Config } from "../config/index.js";

/** Most llama.cpp sequences `solver.concurrency` asks for by default (the cap of `model.sequences`). */
const MAX_SEQUENCES = 64;

/**
 * The {@link OpenModelOptions} a config asks for: `model.contextSize`, `model.threads`,
 * `model.timeoutMs`, `model.samplingTopK`, and `model.sequences` (0 = `solver.concurrency`, at most 64, so
 * every Solver episode in flight samples on its own llama.cpp sequence).
 */
export function modelOptionsOf(config: Config): OpenModelOptions {
  return {
    contextSize: config.model.contextSize,
    threads: config.model.threads,
    timeoutMs: config.model.timeoutMs,
    sequences: config.model.sequences || Math.min(config.solver.concurrency, MAX_SEQUENCES),
    samplingTopK: config.model.samplingTopK,
  };
}
