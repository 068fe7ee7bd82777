import type { ToolDefinition } from "./tool-call.js";

/**
 * One chat message. `tool` is the result of the tool calls the assistant message before it made
 * (its `<tool_call>` markup, as sampled, is that message's content): the chat template renders it
 * as the model expects (Qwen2.5: a `<tool_response>` block in a user turn), an OpenAI-compatible
 * API as `tool` messages answering the assistant's `tool_calls`.
 */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant" | "tool";
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
  /**
   * Tools the model may call (a tool environment's, OpenAI-style function definitions). Providers
   * put them where the model expects them: the chat template's `tools` (the embedded llama.cpp
   * provider and the trainer's tokenizers render the model's own Jinja template with them), the
   * API's `tools` (OpenAI-compatible servers, whose `tool_calls` come back as `<tool_call>` markup
   * in the text). A template that does not render tools is refused ({@link ModelRequestError}).
   * @default none: a plain chat
   */
  readonly tools?: readonly ToolDefinition[];
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
