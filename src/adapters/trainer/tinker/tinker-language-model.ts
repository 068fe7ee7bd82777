import {
  ModelRequestError,
  TrainerRequestError,
  TrainerUnavailableError,
  type ChatMessage,
  type GenerateOptions,
  type Generation,
  type LanguageModel,
  type SamplingClient,
  type ToolDefinition,
} from "../../../spec/index.js";
import type { TinkerHttp } from "./tinker-http.js";

/**
 * Turns chat messages into prompt token ids and completion tokens back into text, for one base model.
 * Implementations: {@link ReferenceTrainerTokenizer} (the reference trainer's routes) and
 * `LocalChatTokenizer` (a local Hugging Face tokenizer folder, `trainer.tokenizer`).
 */
export interface ChatTokenizer {
  /**
   * Prompt tokens of `messages`, ending with an open assistant turn, with `tools` (a tool
   * environment's) rendered by the chat template as the model expects them.
   * @throws ModelRequestError when the template refuses the messages or does not render tools that are given
   */
  encodeChat(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): Promise<readonly number[]>;
  /** Token ids of plain `text` (no chat template, no special tokens added): the logprob probe's completion. */
  encodeText(text: string): Promise<readonly number[]>;
  /** Text of completion tokens (special tokens dropped). */
  decode(tokens: readonly number[]): Promise<string>;
}

/**
 * The reference trainer's tokenizer, through its two routes outside the Tinker API
 * (`/envforge/v1/tokenize`, `/envforge/v1/detokenize`). Hosted Tinker services do not
 * have them; there, give {@link TinkerLanguageModel} a local tokenizer of the base model
 * (`LocalChatTokenizer`, config `trainer.tokenizer`).
 */
export class ReferenceTrainerTokenizer implements ChatTokenizer {
  constructor(private readonly http: TinkerHttp) {}

  async encodeChat(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): Promise<readonly number[]> {
    return this.tokenize(tools === undefined || tools.length === 0 ? { messages } : { messages, tools });
  }

  /** Token ids of plain `text` (no chat template, no special tokens). */
  async encodeText(text: string): Promise<readonly number[]> {
    return this.tokenize({ text });
  }

  private async tokenize(body: { messages: readonly ChatMessage[]; tools?: readonly ToolDefinition[] } | { text: string }): Promise<readonly number[]> {
    const result = await this.http.post<{ tokens?: number[] }>("/envforge/v1/tokenize", body);
    if (!Array.isArray(result.tokens)) throw new TrainerRequestError("tokenize answered without tokens", { status: 200 });
    return result.tokens;
  }

  async decode(tokens: readonly number[]): Promise<string> {
    const result = await this.http.post<{ text?: string }>("/envforge/v1/detokenize", { tokens });
    if (typeof result.text !== "string") throw new TrainerRequestError("detokenize answered without text", { status: 200 });
    return result.text;
  }
}

/**
 * The current policy as a {@link LanguageModel}: chat messages are tokenised, sampled
 * through a {@link SamplingClient} (so the Designer and the Solver act with the latest
 * published weights) and decoded. `tokens` and `logprobs` of every generation are the
 * sampler's, ready for training datums; every generation records the policy version of the
 * sampler (`policyVersion`, as given to the constructor and {@link TinkerLanguageModel.useSampler})
 * and `engine: "trainer"`.
 *
 * @throws ModelRequestError when tokenising, sampling or decoding fails at the trainer
 *   (retryable exactly when the trainer's error was)
 */
export class TinkerLanguageModel implements LanguageModel {
  constructor(
    private sampler: SamplingClient,
    private readonly tokenizer: ChatTokenizer,
    readonly id: string,
    private policyVersion = 0,
  ) {}

  /**
   * Switches to newly published weights; later generations sample from them.
   * @param policyVersion the weights' policy version, recorded on generations. @default unchanged
   */
  useSampler(sampler: SamplingClient, policyVersion?: number): void {
    this.sampler = sampler;
    if (policyVersion !== undefined) this.policyVersion = policyVersion;
  }

  /** The sampling client generations currently come from. */
  get currentSampler(): SamplingClient {
    return this.sampler;
  }

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    try {
      const promptTokens = await this.tokenizer.encodeChat(messages, options.tools);
      const policyVersion = this.policyVersion;
      const result = await this.sampler.sample({
        promptTokens,
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
      });
      const sequence = result.sequences[0];
      if (sequence === undefined) throw new ModelRequestError("the trainer's sampler returned no sequence");
      return {
        text: await this.tokenizer.decode(sequence.tokens),
        tokens: sequence.tokens,
        logprobs: sequence.logprobs,
        promptTokens,
        finishReason: sequence.stopReason,
        policyVersion,
        engine: "trainer",
      };
    } catch (error) {
      if (error instanceof TrainerRequestError || error instanceof TrainerUnavailableError) {
        throw new ModelRequestError(`sampling from ${this.id} failed: ${error.message}`, { retryable: error.retryable, cause: error });
      }
      throw error;
    }
  }

  async close(): Promise<void> {}
}
