import { existsSync } from "node:fs";
import {
  getLlama,
  LlamaLogLevel,
  LlamaChatSession,
  type ChatHistoryItem,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
} from "node-llama-cpp";
import {
  ModelRequestError,
  ModelUnavailableError,
  type ChatMessage,
  type GenerateOptions,
  type Generation,
  type LanguageModel,
} from "../../spec/index.js";

/** Options of {@link LlamaCppModel.load}. */
export interface LlamaCppModelOptions {
  /** Path of a local GGUF file. */
  readonly modelPath: string;
  /** Context window in tokens. @default 4096 */
  readonly contextSize?: number;
  /** CPU threads; 0 lets llama.cpp choose (which can oversubscribe small machines; pass the core count). @default 0 */
  readonly threads?: number;
  /** Repeat penalty applied to recent tokens (1 disables). @default 1 */
  readonly repeatPenalty?: number;
  /** Spec shown in provenance. @default modelPath */
  readonly id?: string;
}

/**
 * Embedded provider: runs a GGUF model on the CPU in-process through
 * node-llama-cpp (llama.cpp). Calls are serialised on one context sequence, so
 * a shared prompt prefix (a growing episode chat) reuses the KV cache. Returns the
 * completion's token ids (by tokenising the text); per-token logprobs are not
 * available from this provider.
 */
export class LlamaCppModel implements LanguageModel {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    private readonly repeatPenalty: number,
  ) {}

  /**
   * Loads the model file.
   * @throws ModelUnavailableError when the file is missing or llama.cpp cannot load it
   */
  static async load(options: LlamaCppModelOptions): Promise<LlamaCppModel> {
    if (!existsSync(options.modelPath)) {
      throw new ModelUnavailableError(
        `model file ${options.modelPath} not found; run ./scripts/setup.sh to fetch the embedded model, or pass --model with a GGUF path, an hf: URI or an OpenAI-compatible URL`,
      );
    }
    try {
      const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
      const model = await llama.loadModel({ modelPath: options.modelPath });
      const context = await model.createContext({
        contextSize: options.contextSize ?? 4096,
        ...(options.threads ? { threads: options.threads } : {}),
      });
      return new LlamaCppModel(options.id ?? options.modelPath, llama, model, context, context.getSequence(), options.repeatPenalty ?? 1);
    } catch (error) {
      throw new ModelUnavailableError(`llama.cpp could not load ${options.modelPath}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const run = this.queue.then(() => this.generateNow(messages, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async generateNow(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const last = messages.at(-1);
    if (last === undefined || last.role !== "user") {
      throw new ModelRequestError("the last chat message must come from the user");
    }
    const session = new LlamaChatSession({ contextSequence: this.sequence, autoDisposeSequence: false });
    try {
      session.setChatHistory(toHistory(messages.slice(0, -1)));
      const result = await session.promptWithMeta(last.content, {
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.signal ? { signal: options.signal, stopOnAbortSignal: true } : {}),
        ...(this.repeatPenalty === 1 ? {} : { repeatPenalty: { penalty: this.repeatPenalty } }),
      });
      const text = result.responseText;
      return {
        text,
        tokens: Array.from(this.model.tokenize(text)),
        finishReason:
          result.stopReason === "maxTokens" ? "length" : result.stopReason === "abort" ? "abort" : "stop",
      };
    } catch (error) {
      if (options.signal?.aborted) throw new ModelRequestError("generation aborted", { cause: error });
      throw new ModelRequestError(`llama.cpp generation failed: ${(error as Error).message}`, { cause: error });
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}

function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  return messages.map((message): ChatHistoryItem => {
    if (message.role === "system") return { type: "system", text: message.content };
    if (message.role === "user") return { type: "user", text: message.content };
    return { type: "model", response: [message.content] };
  });
}
