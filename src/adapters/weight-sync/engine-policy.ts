import {
  EnvforgeError,
  ModelRequestError,
  TrainerRequestError,
  TrainerUnavailableError,
  type ChatMessage,
  type GenerateOptions,
  type Generation,
  type LanguageModel,
  type WeightSync,
  type WeightSyncResult,
} from "../../spec/index.js";
import { SharedExclusiveLock } from "../../support/shared-exclusive.js";
import type { TokenSample } from "../llm/index.js";
import type { ChatTokenizer } from "../trainer/index.js";

/**
 * A sampling engine that continues given prompt token ids and reports the sampling
 * logprob of every token it sampled ({@link LlamaCppModel.sampleTokens} is one).
 */
export interface TokenSamplingEngine {
  /**
   * Samples after `promptTokens`; `logprobs` must align with `tokens`.
   * @throws ModelRequestError when sampling fails or `options.signal` aborts
   */
  sampleTokens(promptTokens: readonly number[], options: GenerateOptions): Promise<TokenSample>;
}

/** Options of {@link EnginePolicy}. */
export interface EnginePolicyOptions {
  /** The engine that samples (the embedded llama.cpp model, on the trainer's base GGUF). */
  readonly engine: TokenSamplingEngine;
  /** The trainer's chat tokenizer: prompts are tokenised and completions decoded as the trainer trains on them. */
  readonly tokenizer: ChatTokenizer;
  /** Moves the trainer's current adapter into `engine` ({@link LlamaCppLoraSync}). */
  readonly sync: WeightSync;
  /** The trainer's current policy version (optimiser steps applied), read before every generation. */
  readonly policyVersion: () => number;
  /** Spec shown in provenance, e.g. `gemma-3-270m-q4_k_m.gguf@reference`. */
  readonly id: string;
  /** Engine name recorded on every generation. @default "llama.cpp" */
  readonly engineName?: string;
  /**
   * Policy version whose weights the engine holds when the policy is made; null = unknown, so
   * the first generation syncs. Version 0 is the base model (a fresh LoRA adapter changes
   * nothing), so an engine on the bare base GGUF holds version 0. @default null
   */
  readonly loadedVersion?: number | null;
}

/**
 * The trained policy sampled on an inference engine (slime, verl and SkyRL split sampling from
 * training the same way): chat messages are tokenised by the trainer's {@link ChatTokenizer},
 * the engine continues exactly those token ids, and completions are decoded by the same
 * tokenizer, so `promptTokens`, `tokens` and `logprobs` of every generation make a training
 * datum directly. Before each generation, when the trainer's policy version differs from the
 * one loaded, the trainer's adapter is exported and loaded (file `policy-<version>`, one per
 * version so that the engine never reloads the model). Generations run concurrently (as many
 * as the engine takes at once); a sync waits for the samples running and holds new ones back
 * until it is done, so a sync never lands in the middle of a sample and every sample is of the
 * version it records. Every generation records `policyVersion` and `engine`.
 *
 * The logprobs are the engine's, under the sampling settings (temperature, repetition penalty,
 * the engine's top-k such as `model.samplingTopK`, renormalised): at temperature 1 without
 * penalty or top-k they estimate the same distribution as the trainer's `forward`, apart from
 * the engine–trainer mismatch (quantised weights against the trainer's dequantised ones).
 *
 * @throws ModelRequestError when tokenising or decoding fails at the trainer, the weight sync
 *   fails (retryable exactly when its cause was), or the engine fails or returns logprobs that
 *   are missing, misaligned or not finite log probabilities
 */
export class EnginePolicy implements LanguageModel {
  readonly id: string;
  /** Samples hold it shared, syncs exclusive. */
  private readonly lock = new SharedExclusiveLock();
  private loaded: number | null;
  private lastSync: WeightSyncResult | null = null;
  private readonly engineName: string;

  constructor(private readonly options: EnginePolicyOptions) {
    this.id = options.id;
    this.engineName = options.engineName ?? "llama.cpp";
    this.loaded = options.loadedVersion ?? null;
  }

  /** Policy version whose weights the engine holds now; null before the first sync of an unknown engine. */
  get loadedVersion(): number | null {
    return this.loaded;
  }

  /** The engine this policy samples on (benchmarks compare its raw speed with the policy's). */
  get samplingEngine(): TokenSamplingEngine {
    return this.options.engine;
  }

  /** The last sync this policy made (with its export and load milliseconds); null before any. */
  get lastSyncResult(): WeightSyncResult | null {
    return this.lastSync;
  }

  /**
   * Exports the trainer's current adapter and loads it into the engine now, whatever version
   * is loaded (once the generations running have finished): the run's start uses it to prove that the engine
   * can load the trainer's adapters.
   * @throws what {@link WeightSync.sync} throws, unwrapped
   */
  syncNow(): Promise<WeightSyncResult> {
    return this.lock.exclusive(() => this.syncTo(this.options.policyVersion()));
  }

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const promptTokens = await this.trainerCall("tokenising the prompt", () => this.options.tokenizer.encodeChat(messages, options.tools));
    const { sample, policyVersion } = await this.sampleCurrent(promptTokens, options);
    const logprobs = checkedLogprobs(sample, this.engineName);
    const text = await this.trainerCall("decoding the completion", () => this.options.tokenizer.decode(sample.tokens));
    return { text, tokens: sample.tokens, logprobs, promptTokens, finishReason: sample.finishReason, policyVersion, engine: this.engineName };
  }

  /** Waits for the generations running; releases nothing (the engine and the trainer belong to whoever made them). */
  close(): Promise<void> {
    return this.lock.exclusive(async () => undefined);
  }

  /** Samples with the weights of the trainer's current version, syncing them first when the engine holds another. */
  private async sampleCurrent(promptTokens: readonly number[], options: GenerateOptions): Promise<{ sample: TokenSample; policyVersion: number }> {
    for (;;) {
      const sampled = await this.lock.shared(async () => {
        const version = this.options.policyVersion();
        if (version !== this.loaded) return null;
        return { sample: await this.options.engine.sampleTokens(promptTokens, options), policyVersion: version };
      });
      if (sampled !== null) return sampled;
      await this.lock.exclusive(async () => {
        const version = this.options.policyVersion();
        if (version === this.loaded) return; // a concurrent generation synced it
        try {
          await this.syncTo(version);
        } catch (error) {
          const retryable = error instanceof EnvforgeError ? error.retryable : false;
          throw new ModelRequestError(`loading policy version ${version} into ${this.engineName} failed: ${(error as Error).message}`, { retryable, cause: error });
        }
      });
    }
  }

  private async syncTo(version: number): Promise<WeightSyncResult> {
    const result = await this.options.sync.sync({ name: `policy-${version}`, policyVersion: version });
    this.loaded = version;
    this.lastSync = result;
    return result;
  }

  private async trainerCall<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof TrainerRequestError || error instanceof TrainerUnavailableError) {
        throw new ModelRequestError(`${what} for ${this.id} failed at the trainer: ${error.message}`, { retryable: error.retryable, cause: error });
      }
      throw error;
    }
  }
}

/** Largest logprob accepted above 0 (float rounding of a probability of 1), nats. */
const LOGPROB_SLACK = 1e-4;

/** The sample's logprobs, checked (one finite value ≤ 0 per token) and clamped to ≤ 0. */
function checkedLogprobs(sample: TokenSample, engine: string): number[] {
  const logprobs = (sample as { logprobs?: readonly number[] }).logprobs;
  if (!Array.isArray(logprobs) || logprobs.length !== sample.tokens.length) {
    throw new ModelRequestError(`${engine} returned ${Array.isArray(logprobs) ? logprobs.length : "no"} logprobs for ${sample.tokens.length} sampled tokens; training needs one per token`);
  }
  return logprobs.map((value: number, index: number) => {
    if (!Number.isFinite(value) || value > LOGPROB_SLACK) {
      throw new ModelRequestError(`${engine} returned logprob ${value} for sampled token ${index}; a log probability is finite and ≤ 0`);
    }
    return Math.min(value, 0);
  });
}
