import OpenAI from "openai";
import { ModelRequestError, type GenerateOptions } from "../../spec/index.js";
import { toModelError, type TokenSample } from "../llm/index.js";
import type { TokenSamplingEngine } from "./engine-policy.js";
import { INFERENCE_SERVER_NAMES, serverRootOf, type InferenceServerKind } from "./inference-server.js";
import type { TokenScoringEngine } from "./sync-check.js";

/** Options of {@link VllmSamplingEngine} and {@link SglangSamplingEngine}. */
export interface ServerSamplingEngineOptions {
  /** The server's root URL, e.g. `http://127.0.0.1:8000` (no `/v1`). */
  readonly url: string;
  /** Name of the LoRA adapter requests run on (the newest one loaded, {@link ServerLoraSync.adapter}); null = none loaded yet. */
  readonly adapter: () => string | null;
  /** Timeout of one request, milliseconds. @default 120000 */
  readonly requestTimeoutMs?: number;
  /** Retries of one request on connection errors, 408, 409, 429 and 5xx (the `openai` client's own retries). @default 2 */
  readonly maxRetries?: number;
  /** API key sent as a bearer token (vLLM `--api-key`). @default "not-needed" */
  readonly apiKey?: string;
}

/** A server engine: samples with per-token logprobs and scores sequences, on the loaded adapter. */
export type ServerSamplingEngine = TokenSamplingEngine & TokenScoringEngine;

/**
 * The sampling engine of `kind` on the server at `options.url`.
 * @throws ConfigError for a bad `url`
 */
export function openServerSamplingEngine(kind: InferenceServerKind, options: ServerSamplingEngineOptions): ServerSamplingEngine {
  return kind === "vllm" ? new VllmSamplingEngine(options) : new SglangSamplingEngine(options);
}

/**
 * Full-vocabulary sampling: no top-k, top-p, min-p or repetition penalty, sent explicitly so that a
 * server's defaults (vLLM applies the model's `generation_config.json`) do not narrow the distribution
 * the logprobs are reported for.
 */
const FULL_VOCABULARY = { top_p: 1, top_k: -1, min_p: 0, repetition_penalty: 1 } as const;

/**
 * Samples on a vLLM server's OpenAI-compatible completions route, continuing exact token ids:
 * `POST {url}/v1/completions` with `prompt` as the token-id array, `model` the loaded adapter's
 * name, `logprobs: 1` and vLLM's `return_tokens_as_token_ids: true`, so that
 * `choices[0].logprobs.tokens` are `token_id:N` strings aligned with `token_logprobs`
 * (vLLM's CompletionRequest and its OpenAI-compatible server docs). A grammar is passed as
 * `structured_outputs.grammar` (vLLM's xgrammar backend reads GBNF-style grammars).
 *
 * vLLM reports the logprobs of its `--logprobs-mode`: by default `raw_logprobs`, the model's own
 * distribution before temperature and penalties; start it with `--logprobs-mode processed_logprobs`
 * for the distribution it sampled from (the same at temperature 1). The engine–trainer mismatch
 * correction at each step accounts for either.
 *
 * @throws ModelRequestError when the request fails (retryable by status), no adapter is loaded,
 *   `options.signal` aborts, or the answer has no choice, no per-token logprobs, tokens that are not
 *   `token_id:N`, or a finish reason other than `stop` / `length`
 * @throws ModelUnavailableError (retryable) when the server cannot be reached
 */
export class VllmSamplingEngine implements ServerSamplingEngine {
  private readonly client: OpenAI;

  constructor(private readonly options: ServerSamplingEngineOptions) {
    this.client = clientOf(options, `${serverRootOf(options.url)}/v1`);
  }

  async sampleTokens(promptTokens: readonly number[], options: GenerateOptions): Promise<TokenSample> {
    if (promptTokens.length === 0) throw new ModelRequestError("cannot sample after an empty prompt");
    if (options.maxTokens <= 0) return { tokens: [], logprobs: [], finishReason: "length" };
    const body = {
      model: adapterOf(this.options, "vLLM"),
      prompt: [...promptTokens],
      max_tokens: options.maxTokens,
      temperature: options.temperature,
      ...FULL_VOCABULARY,
      logprobs: 1,
      return_tokens_as_token_ids: true,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.grammar === undefined ? {} : { structured_outputs: { grammar: options.grammar } }),
    };
    const choice = (await this.complete(body, options.signal)).choices?.[0];
    if (choice === undefined) throw new ModelRequestError("vLLM returned no completion choice");
    const logprobs = choice.logprobs;
    if (!logprobs || !Array.isArray(logprobs.tokens) || !Array.isArray(logprobs.token_logprobs) || logprobs.tokens.length !== logprobs.token_logprobs.length) {
      throw new ModelRequestError(
        `vLLM returned no per-token logprobs (choices[0].logprobs.tokens and token_logprobs, one per sampled token); training needs them: is ${this.client.baseURL} a vLLM server?`,
      );
    }
    const tokens = logprobs.tokens.map((token, index) => {
      const match = /^token_id:(\d+)$/.exec(String(token));
      if (match === null) throw new ModelRequestError(`vLLM returned sampled token ${index} as ${JSON.stringify(token)}, not token_id:N; it must honour return_tokens_as_token_ids`);
      return Number(match[1]);
    });
    const values = logprobs.token_logprobs.map((value, index) => {
      if (typeof value !== "number") throw new ModelRequestError(`vLLM returned no logprob for sampled token ${index}`);
      return value;
    });
    return { tokens, logprobs: values, finishReason: finishOf(choice.finish_reason, "vLLM") };
  }

  /**
   * `log p(tokens[i + 1] | tokens[0..i])` under the loaded adapter: `prompt_logprobs` of a
   * one-token completion (vLLM's extension: one entry per prompt token, the first null, each a map
   * from token id to `{logprob}` holding the prompt's own token).
   * @throws ModelRequestError when the answer lacks a prompt token's logprob
   */
  async tokenLogprobs(tokens: readonly number[]): Promise<number[]> {
    if (tokens.length < 2) return [];
    const body = { model: adapterOf(this.options, "vLLM"), prompt: [...tokens], max_tokens: 1, temperature: 0, prompt_logprobs: 1 };
    const choice = (await this.complete(body, undefined)).choices?.[0] as { prompt_logprobs?: (Record<string, { logprob?: unknown }> | null)[] } | undefined;
    const entries = choice?.prompt_logprobs;
    if (!Array.isArray(entries) || entries.length !== tokens.length) {
      throw new ModelRequestError(`vLLM returned ${Array.isArray(entries) ? entries.length : "no"} prompt logprobs for ${tokens.length} prompt tokens`);
    }
    return tokens.slice(1).map((token, index) => {
      const value = entries[index + 1]?.[String(token)]?.logprob;
      if (typeof value !== "number") throw new ModelRequestError(`vLLM returned no prompt logprob for token ${token} at position ${index + 1}`);
      return value;
    });
  }

  private async complete(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<OpenAI.Completions.Completion> {
    try {
      return await this.client.completions.create(body as unknown as OpenAI.Completions.CompletionCreateParamsNonStreaming, signal ? { signal } : undefined);
    } catch (error) {
      throw toModelError(error);
    }
  }
}

/** One `/generate` answer of SGLang, the fields read here. */
interface SglangGenerateAnswer {
  readonly meta_info?: {
    readonly finish_reason?: { readonly type?: unknown } | null;
    /** `[logprob, token_id, text | null]` per sampled token. */
    readonly output_token_logprobs?: readonly (readonly unknown[])[];
    /** `[logprob | null, token_id, text | null]` per prompt token from `logprob_start_len`. */
    readonly input_token_logprobs?: readonly (readonly unknown[])[];
  };
}

/**
 * Samples on an SGLang server's native route, continuing exact token ids: `POST {url}/generate`
 * with `input_ids`, `sampling_params` (`max_new_tokens`, `temperature`, full vocabulary,
 * `sampling_seed` for a seed, `ebnf` for a grammar), `return_logprob: true` and `lora_path` the
 * loaded adapter's name; it reads `meta_info.output_token_logprobs` (`[logprob, token_id, text]`
 * per sampled token) and `meta_info.finish_reason.type` (SGLang's GenerateReqInput and
 * "Sampling Parameters" docs; slime reads the same fields). SGLang's logprobs are those after
 * temperature unless the server sets `SGLANG_RETURN_ORIGINAL_LOGPROB`; it honours `sampling_seed`
 * only with `--enable-deterministic-inference`.
 *
 * @throws ModelRequestError when the request fails (retryable by status), no adapter is loaded,
 *   `options.signal` aborts, or the answer has no per-token logprobs or an unknown finish reason
 * @throws ModelUnavailableError (retryable) when the server cannot be reached
 */
export class SglangSamplingEngine implements ServerSamplingEngine {
  private readonly client: OpenAI;

  constructor(private readonly options: ServerSamplingEngineOptions) {
    this.client = clientOf(options, serverRootOf(options.url));
  }

  async sampleTokens(promptTokens: readonly number[], options: GenerateOptions): Promise<TokenSample> {
    if (promptTokens.length === 0) throw new ModelRequestError("cannot sample after an empty prompt");
    if (options.maxTokens <= 0) return { tokens: [], logprobs: [], finishReason: "length" };
    const body = {
      input_ids: [...promptTokens],
      sampling_params: {
        max_new_tokens: options.maxTokens,
        temperature: options.temperature,
        ...FULL_VOCABULARY,
        ...(options.seed === undefined ? {} : { sampling_seed: options.seed }),
        ...(options.grammar === undefined ? {} : { ebnf: options.grammar }),
      },
      return_logprob: true,
      lora_path: adapterOf(this.options, "SGLang"),
      stream: false,
    };
    const answer = await this.generate(body, options.signal);
    const entries = answer.meta_info?.output_token_logprobs;
    if (!Array.isArray(entries)) {
      throw new ModelRequestError(`SGLang returned no meta_info.output_token_logprobs; training needs one logprob per sampled token: is ${this.client.baseURL} an SGLang server?`);
    }
    const tokens: number[] = [];
    const logprobs: number[] = [];
    entries.forEach((entry, index) => {
      const [logprob, token] = Array.isArray(entry) ? entry : [];
      if (typeof logprob !== "number" || typeof token !== "number") throw new ModelRequestError(`SGLang returned ${JSON.stringify(entry)} for sampled token ${index}, not [logprob, token_id, text]`);
      tokens.push(token);
      logprobs.push(logprob);
    });
    return { tokens, logprobs, finishReason: finishOf(answer.meta_info?.finish_reason?.type, "SGLang") };
  }

  /**
   * `log p(tokens[i + 1] | tokens[0..i])` under the loaded adapter: `meta_info.input_token_logprobs`
   * of a one-token generation with `logprob_start_len: 0` (one entry per prompt token, the first null).
   * @throws ModelRequestError when the answer lacks a prompt token's logprob
   */
  async tokenLogprobs(tokens: readonly number[]): Promise<number[]> {
    if (tokens.length < 2) return [];
    const body = {
      input_ids: [...tokens],
      sampling_params: { max_new_tokens: 1, temperature: 0 },
      return_logprob: true,
      logprob_start_len: 0,
      lora_path: adapterOf(this.options, "SGLang"),
      stream: false,
    };
    const entries = (await this.generate(body, undefined)).meta_info?.input_token_logprobs;
    if (!Array.isArray(entries) || entries.length !== tokens.length) {
      throw new ModelRequestError(`SGLang returned ${Array.isArray(entries) ? entries.length : "no"} input token logprobs for ${tokens.length} prompt tokens`);
    }
    return tokens.slice(1).map((token, index) => {
      const [logprob, id] = (entries[index + 1] ?? []) as readonly unknown[];
      if (typeof logprob !== "number" || id !== token) throw new ModelRequestError(`SGLang returned no input logprob for token ${token} at position ${index + 1}`);
      return logprob;
    });
  }

  private async generate(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<SglangGenerateAnswer> {
    try {
      return await this.client.post<SglangGenerateAnswer>("/generate", { body, ...(signal ? { signal } : {}) });
    } catch (error) {
      throw toModelError(error);
    }
  }
}

/** The loaded adapter's name, which every request names: sampling the bare base model would train one policy and sample another. */
function adapterOf(options: ServerSamplingEngineOptions, server: string): string {
  const adapter = options.adapter();
  if (adapter === null) throw new ModelRequestError(`no LoRA adapter is loaded into ${server} yet; the weight sync loads one before the first sample`);
  return adapter;
}

function finishOf(reason: unknown, server: (typeof INFERENCE_SERVER_NAMES)[InferenceServerKind]): TokenSample["finishReason"] {
  if (reason === "length") return "length";
  if (reason === "stop") return "stop";
  throw new ModelRequestError(`${server} ended the sample with finish reason ${JSON.stringify(reason)}, neither stop nor length`, { retryable: reason === "abort" });
}

/** The `openai` client of a server engine (its retries and timeout), at `baseURL`. */
function clientOf(options: ServerSamplingEngineOptions, baseURL: string): OpenAI {
  return new OpenAI({ baseURL, apiKey: options.apiKey ?? "not-needed", timeout: options.requestTimeoutMs ?? 120_000, maxRetries: options.maxRetries ?? 2 });
}
