/** One chat message. */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

/** Sampling options for one {@link LanguageModel.generate} call. */
export interface GenerateOptions {
  /** Maximum new tokens. */
  readonly maxTokens: number;
  /** Sampling temperature (0 = greedy). */
  readonly temperature: number;
  /** Sampling seed, where the provider honours one. */
  readonly seed?: number;
  /**
   * Strength (0–1) of a penalty on repeating recent token sequences, against the loops small models fall
   * into when writing code. The embedded llama.cpp provider applies it as the DRY sampler over the
   * completion's last 512 tokens, sequences of up to 4 tokens free; other providers ignore it. @default 0 (off)
   */
  readonly repetitionPenalty?: number;
  /**
   * A GBNF grammar (llama.cpp's grammar format) the completion must follow, e.g. the scaffold's
   * (`SCAFFOLD_GRAMMAR`). The embedded llama.cpp provider and the engine policy enforce it (the
   * logprobs are then those of the constrained distribution); other providers ignore it. @default none
   */
  readonly grammar?: string;
  /** Aborts the request; the promise rejects with a {@link ModelRequestError}. */
  readonly signal?: AbortSignal;
}

/**
 * The result of one generation. `tokens` and `logprobs` are present when the
 * provider gives them (`logprobs[i]` is the natural-log probability of
 * `tokens[i]` under the sampling policy).
 */
export interface Generation {
  /** The completion text. */
  readonly text: string;
  /** Token ids of the completion, if known. */
  readonly tokens?: readonly number[];
  /** Per-token sampling logprobs aligned with `tokens`, if known. */
  readonly logprobs?: readonly number[];
  /**
   * Token ids of the whole prompt the completion was sampled after (chat template
   * included), if known: with `tokens` and `logprobs` it makes a training datum.
   */
  readonly promptTokens?: readonly number[];
  /** Why generation stopped. */
  readonly finishReason: "stop" | "length" | "abort" | "unknown";
  /**
   * Policy version (optimiser steps) of the weights that sampled it, where the provider
   * tracks a trained policy; absent otherwise.
   */
  readonly policyVersion?: number;
  /** The engine that sampled it, e.g. `llama.cpp` or `trainer`, where the provider names one. */
  readonly engine?: string;
}

/**
 * A chat language model: the policy that plays both the Designer and the Solver.
 * Implementations: the embedded llama.cpp provider and the OpenAI-compatible HTTP
 * provider.
 *
 * @throws ModelUnavailableError when the model cannot be reached or loaded
 * @throws ModelRequestError when a request fails after it was accepted
 */
export interface LanguageModel {
  /** A human-readable spec of the model, stored in provenance. */
  readonly id: string;
  /** Generates one reply to `messages`. */
  generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation>;
  /** Releases resources (model memory, sockets). */
  close(): Promise<void>;
}
