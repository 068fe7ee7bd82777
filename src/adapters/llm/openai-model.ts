import OpenAI from "openai";
import {
  ModelRequestError,
  ModelUnavailableError,
  type ChatMessage,
  type GenerateOptions,
  type Generation,
  type LanguageModel,
} from "../../spec/index.js";
import { replyText, toApiMessages, toApiTools } from "./openai-tool-messages.js";

/** Options of {@link OpenAICompatibleModel.connect}. */
export interface OpenAICompatibleModelOptions {
  /** Base URL of the API, e.g. `http://localhost:8000/v1`. */
  readonly baseURL: string;
  /** Model name; when absent the first model the server lists is used. */
  readonly model?: string;
  /** API key. @default process.env.OPENAI_API_KEY, else "not-needed" */
  readonly apiKey?: string;
  /** Request timeout in milliseconds. @default 120000 */
  readonly timeoutMs?: number;
  /** Retries on retryable failures (connection errors, 408, 409, 429, 5xx). @default 2 */
  readonly maxRetries?: number;
}

/**
 * Provider for any OpenAI-compatible chat completions server (vLLM, SGLang,
 * llama.cpp server, Ollama, OpenAI) through the official `openai` package.
 * Requests logprobs; when the server returns token ids (vLLM's
 * `return_tokens_as_token_ids`), `tokens` and `logprobs` are filled. Tools go in the request's
 * `tools`, and the chat's `<tool_call>` markup and `tool` messages are sent as the API's
 * `tool_calls` and `tool` messages ({@link toApiMessages}); calls that come back are appended to
 * the text as `<tool_call>` markup ({@link replyText}).
 */
export class OpenAICompatibleModel implements LanguageModel {
  private constructor(
    readonly id: string,
    private readonly client: OpenAI,
    private readonly model: string,
  ) {}

  /**
   * Creates the client and resolves the model name.
   * @throws ModelUnavailableError when the server cannot be reached or lists no model
   */
  static async connect(options: OpenAICompatibleModelOptions): Promise<OpenAICompatibleModel> {
    const client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
      timeout: options.timeoutMs ?? 120_000,
      maxRetries: options.maxRetries ?? 2,
    });
    let model = options.model;
    if (model === undefined) {
      try {
        const page = await client.models.list();
        model = page.data[0]?.id;
      } catch (error) {
        throw new ModelUnavailableError(`cannot reach ${options.baseURL}: ${(error as Error).message}`, {
          retryable: true,
          cause: error,
        });
      }
      if (model === undefined) throw new ModelUnavailableError(`${options.baseURL} lists no models; pass the model name`);
    }
    return new OpenAICompatibleModel(`${model}@${options.baseURL}`, client, model);
  }

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const body = {
      model: this.model,
      messages: toApiMessages(messages),
      ...(options.tools === undefined || options.tools.length === 0 ? {} : { tools: toApiTools(options.tools) }),
      max_tokens: options.maxTokens,
      temperature: options.temperature,
      logprobs: true,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    };
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        body,
        options.signal ? { signal: options.signal } : undefined,
      );
    } catch (error) {
      throw toModelError(error);
    }
    const choice = completion.choices[0];
    if (choice === undefined) throw new ModelRequestError("the server returned no choices");
    const text = replyText(choice.message);
    const tokenLogprobs = choice.logprobs?.content ?? [];
    const ids = tokenLogprobs.map((entry) => /^token_id:(\d+)$/.exec(entry.token)?.[1]);
    const finishReason = choice.finish_reason === "length" ? "length" : choice.finish_reason === "stop" || choice.finish_reason === "tool_calls" ? "stop" : "unknown";
    if (tokenLogprobs.length > 0 && ids.every((id) => id !== undefined)) {
      return {
        text,
        tokens: ids.map((id) => Number(id)),
        logprobs: tokenLogprobs.map((entry) => entry.logprob),
        finishReason,
      };
    }
    return { text, finishReason };
  }

  async close(): Promise<void> {}
}

/** Maps openai-node errors to typed envforge errors with `retryable` decided by status. */
export function toModelError(error: unknown): Error {
  if (error instanceof OpenAI.APIUserAbortError) return new ModelRequestError("request aborted", { cause: error });
  if (error instanceof OpenAI.APIConnectionError) {
    return new ModelUnavailableError(`model server unreachable: ${error.message}`, { retryable: true, cause: error });
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return new ModelRequestError(`model server answered ${status}: ${error.message}`, { retryable, cause: error });
  }
  return new ModelRequestError(`model request failed: ${(error as Error).message}`, { cause: error });
}
