import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { resolveModelFile } from "node-llama-cpp";
import { ConfigError, ModelUnavailableError, type LanguageModel } from "../../spec/index.js";
import { cacheDirectory, embeddedModelOf, embeddedModelPath, isEmbeddedSpec, setupCommandFor } from "./embedded-model.js";
import { LlamaCppModel } from "./llamacpp-model.js";
import { OpenAICompatibleModel } from "./openai-model.js";

/** Options of {@link openModel}. */
export interface OpenModelOptions {
  /** Context window for embedded models, tokens. @default 4096 */
  readonly contextSize?: number;
  /** CPU threads for embedded models; 0 = one per available core (llama.cpp's own default oversubscribes small machines badly). @default 0 */
  readonly threads?: number;
  /** Sequences of an embedded model's llama.cpp context (generations sampled at once). @default 1 */
  readonly sequences?: number;
  /** Candidates of an embedded model's token sampler (`LlamaCppModel.sampleTokens`); 0 = the full vocabulary. @default 0 */
  readonly samplingTopK?: number;
  /** Model name for an OpenAI-compatible URL (else the URL's `#fragment`, else the first listed). */
  readonly remoteModel?: string;
  /** Request timeout for remote models, milliseconds. @default 120000 */
  readonly timeoutMs?: number;
}

/** The kinds of model spec {@link openModel} accepts. */
export type ModelSpecKind = "embedded" | "gguf" | "hf" | "openai";

/**
 * Classifies a model spec: `embedded` (the default Gemma 3 270M) or
 * `embedded:<name>` (a model of the embedded catalogue), a path ending
 * in `.gguf`, an `hf:` URI (downloaded by node-llama-cpp when online), or an
 * `http(s)://` base URL of an OpenAI-compatible server (model name after `#`).
 *
 * @throws ConfigError for anything else
 */
export function classifyModelSpec(spec: string): ModelSpecKind {
  if (isEmbeddedSpec(spec)) {
    embeddedModelOf(spec);
    return "embedded";
  }
  if (spec.startsWith("hf:")) return "hf";
  if (/^https?:\/\//.test(spec)) return "openai";
  if (spec.endsWith(".gguf")) return "gguf";
  throw new ConfigError(
    `model "${spec}" is not a model spec; use "embedded" (or embedded:<name>), a path to a .gguf file, an hf: URI, or an http(s):// URL of an OpenAI-compatible server (model name after #)`,
  );
}

/**
 * Opens the language model a spec names.
 *
 * @throws ConfigError for an unrecognised spec
 * @throws ModelUnavailableError when the file is missing, the download fails or the server is unreachable
 */
export async function openModel(spec: string, options: OpenModelOptions = {}): Promise<LanguageModel> {
  const kind = classifyModelSpec(spec);
  const local = { contextSize: options.contextSize ?? 4096, threads: options.threads || availableParallelism(), sequences: options.sequences ?? 1, samplingTopK: options.samplingTopK ?? 0 };
  switch (kind) {
    case "embedded": {
      const entry = embeddedModelOf(spec);
      const modelPath = embeddedModelPath(process.env, entry);
      if (!existsSync(modelPath)) throw new ModelUnavailableError(`the embedded model ${entry.name} is not installed (${modelPath} is missing): run ${setupCommandFor(entry)}`);
      return LlamaCppModel.load({ ...local, modelPath, id: `embedded:${entry.name}` });
    }
    case "gguf":
      return LlamaCppModel.load({ ...local, modelPath: spec, id: spec });
    case "hf": {
      let modelPath: string;
      try {
        modelPath = await resolveModelFile(spec, { directory: join(cacheDirectory(), "models"), cli: false });
      } catch (error) {
        throw new ModelUnavailableError(`cannot download ${spec}: ${(error as Error).message}`, { cause: error });
      }
      return LlamaCppModel.load({ ...local, modelPath, id: spec });
    }
    case "openai": {
      const [baseURL = spec, fragment] = spec.split("#", 2);
      const model = options.remoteModel ?? (fragment || undefined);
      return OpenAICompatibleModel.connect({
        baseURL,
        ...(model ? { model } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
    }
  }
}
