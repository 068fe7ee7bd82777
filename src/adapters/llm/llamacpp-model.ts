import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  getLlama,
  LlamaLogLevel,
  LlamaChatSession,
  LlamaGrammarEvaluationState,
  type LlamaGrammar,
  type ChatHistoryItem,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  readGgufFileInfo,
  type GgufFileInfo,
  type Token,
  type ControlledEvaluateInputItem,
} from "node-llama-cpp";
import { readFileSync } from "node:fs";
import { ChatTemplate, GEMMA_FALLBACK_TEMPLATE } from "./chat-template.js";
import { checkLoraAdapter } from "./gguf-lora-check.js";
import {
  ModelRequestError,
  ModelUnavailableError,
  type ChatMessage,
  type GenerateOptions,
  type Generation,
  type LanguageModel,
} from "../../spec/index.js";
import { ItemPool } from "../../support/item-pool.js";
import { SharedExclusiveLock } from "../../support/shared-exclusive.js";

/** A LoRA adapter to apply on top of the base GGUF. */
export interface LoraAdapterOptions {
  /** Path of a GGUF LoRA adapter made for the same base model (e.g. by the reference trainer's export). */
  readonly filePath: string;
  /** Multiplier of the adapter's `alpha / rank` scaling (1 = as trained). @default 1 */
  readonly scale?: number;
}

/** One sample of {@link LlamaCppModel.sampleTokens}: completion token ids with their sampling logprobs. */
export interface TokenSample {
  /** Completion token ids, the end-of-generation token included when one stopped it. */
  readonly tokens: readonly number[];
  /** Natural-log sampling probability of each of `tokens`, aligned with it. */
  readonly logprobs: readonly number[];
  /** `stop` after an end-of-generation token, `length` at `maxTokens`. */
  readonly finishReason: "stop" | "length";
}

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
  /** A LoRA adapter to open the context with; none when undefined. */
  readonly lora?: LoraAdapterOptions;
  /**
   * Sequences of the one llama.cpp context: that many calls sample at once, and llama.cpp
   * evaluates them in shared batches (each sequence has its own `contextSize` of KV cache).
   * @default 1
   */
  readonly sequences?: number;
  /**
   * Candidates of {@link LlamaCppModel.sampleTokens}: the `samplingTopK` most likely tokens, the
   * distribution renormalised over them (its logprobs are of that distribution, the one sampled
   * from); 0 = the full vocabulary. A bound is much cheaper on large vocabularies: reporting a
   * sampled token's probability over the full vocabulary makes node-llama-cpp sort every candidate
   * (262,144 on Gemma 3) at every token. @default 0
   */
  readonly samplingTopK?: number;
  /**
   * Bytes of adapter files one loaded model may accumulate before {@link LlamaCppModel.setAdapter}
   * reopens the model to release them (llama.cpp keeps every adapter a model loaded until the
   * model is disposed). @default 268435456 (256 MiB)
   */
  readonly adapterMemoryBytes?: number;
}

/** Positions scored per llama.cpp call by {@link LlamaCppModel.tokenLogprobs} (each returns a full-vocabulary distribution). */
const LOGPROB_CHUNK = 8;

/**
 * Embedded provider: runs a GGUF model on the CPU in-process through
 * node-llama-cpp (llama.cpp). Calls run on the sequences of one context
 * (`sequences`, default 1): up to that many at once, evaluated in shared batches, the
 * rest waiting for a free sequence. A call takes the free sequence whose KV cache shares
 * the longest prefix with its prompt, so a growing episode chat reuses its cache. Returns the
 * completion's token ids (by tokenising the text); per-token logprobs of a generation
 * are not available from this provider, but {@link LlamaCppModel.tokenLogprobs} scores
 * a given token sequence.
 *
 * A LoRA adapter (GGUF, for the same base model) can be applied at load time
 * (`lora`) and swapped later with {@link LlamaCppModel.setAdapter}: that is how the
 * trainer's published weights reach this engine.
 */
export class LlamaCppModel implements LanguageModel {
  /** Samples hold it shared; adapter swaps and close hold it exclusive (nothing samples during a swap). */
  private readonly lock = new SharedExclusiveLock();
  private model: LlamaModel;
  private context: LlamaContext;
  private sequences: ItemPool<LlamaContextSequence>;
  private currentAdapter: LoraAdapterOptions | null;
  /** Adapter files loaded into the current model: resolved path → size and mtime when loaded. */
  private loadedAdapters = new Map<string, string>();
  private loadedBytes = 0;
  /** Compiled grammars by their GBNF text (a run uses one or two). */
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** The model's chat template, compiled at the first chat with tools. */
  private chatTemplate: ChatTemplate | null = null;

  private constructor(
    readonly id: string,
    private readonly llama: Llama,
    private readonly settings: LlamaCppModelOptions,
    opened: Opened,
    private readonly repeatPenalty: number,
  ) {
    this.model = opened.model;
    this.context = opened.context;
    this.sequences = poolOf(opened.context);
    this.currentAdapter = opened.adapter;
    if (opened.adapter !== null) this.noteLoaded(opened.adapter.filePath);
  }

  /**
   * Loads the model file (and the adapter in `options.lora`, if any).
   * @throws ModelUnavailableError when the file is missing or llama.cpp cannot load it
   * @throws LoraAdapterError when the adapter is missing, truncated, or made for another base model
   */
  static async load(options: LlamaCppModelOptions): Promise<LlamaCppModel> {
    if (!existsSync(options.modelPath)) {
      throw new ModelUnavailableError(
        `model file ${options.modelPath} not found; run ./scripts/setup.sh to fetch the embedded model, or pass --model with a GGUF path, an hf: URI or an OpenAI-compatible URL`,
      );
    }
    let llama: Llama;
    try {
      llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
    } catch (error) {
      throw new ModelUnavailableError(`llama.cpp could not start: ${(error as Error).message}`, { cause: error });
    }
    const opened = await open(llama, options, options.lora ?? null);
    return new LlamaCppModel(options.id ?? options.modelPath, llama, options, opened, options.repeatPenalty ?? 1);
  }

  /** The LoRA adapter applied now; null for the bare base model. */
  get adapter(): LoraAdapterOptions | null {
    return this.currentAdapter;
  }

  /** Sequences of the context: calls that sample at once. */
  get parallelSequences(): number {
    return this.context.totalSequences;
  }

  /**
   * Replaces the applied LoRA adapter (null = the bare base model) once the calls running
   * now have finished (calls made meanwhile wait for the swap): a new context is opened with the new adapter, and only then is the old
   * context released, so if opening fails the old adapter stays in use. The KV cache
   * starts empty.
   *
   * llama.cpp keeps every adapter a model loaded until the model is disposed, and
   * node-llama-cpp 3.21 caches them by path. So the model itself is reopened (seconds,
   * against milliseconds for a context) when a path it loaded before has changed on disk
   * since (it would otherwise apply the stale copy), or when the adapters it holds would
   * pass `adapterMemoryBytes`. Give each version its own file to keep swaps cheap.
   *
   * @throws LoraAdapterError when the adapter is missing, truncated, or made for another base model
   * @throws ModelUnavailableError when llama.cpp cannot open the model or the adapter
   */
  setAdapter(adapter: LoraAdapterOptions | null): Promise<void> {
    return this.lock.exclusive(async () => {
      if (adapter !== null) await checkLoraAdapter(adapter.filePath, this.model.fileInfo);
      if (adapter !== null && this.needsFreshModel(adapter.filePath)) {
        const opened = await open(this.llama, this.settings, adapter, this.model.fileInfo);
        const previous = { model: this.model, context: this.context };
        this.model = opened.model;
        this.loadedAdapters = new Map();
        this.loadedBytes = 0;
        this.useContext(opened.context, adapter);
        await previous.context.dispose();
        await previous.model.dispose();
        return;
      }
      const context = await openContext(this.model, this.settings, adapter);
      const previous = this.context;
      this.useContext(context, adapter);
      await previous.dispose();
    });
  }

  private useContext(context: LlamaContext, adapter: LoraAdapterOptions | null): void {
    this.context = context;
    this.sequences = poolOf(context);
    this.currentAdapter = adapter;
    if (adapter !== null) this.noteLoaded(adapter.filePath);
  }

  private needsFreshModel(filePath: string): boolean {
    const path = resolve(filePath);
    const loaded = this.loadedAdapters.get(path);
    if (loaded !== undefined) return loaded !== fileSignature(path);
    return this.loadedBytes + statSync(path).size > (this.settings.adapterMemoryBytes ?? 268_435_456);
  }

  private noteLoaded(filePath: string): void {
    const path = resolve(filePath);
    if (this.loadedAdapters.has(path)) return;
    this.loadedAdapters.set(path, fileSignature(path));
    this.loadedBytes += statSync(path).size;
  }

  /**
   * Natural-log probability of each token of `tokens` after the ones before it, under
   * the model with its current adapter: entry `i` is `log p(tokens[i + 1] | tokens[0..i])`
   * (so the result has `tokens.length - 1` entries). The distribution is llama.cpp's
   * softmax of the raw logits (no temperature, no top-k). Each scored position returns a
   * full-vocabulary distribution, so this is for checks and short sequences, not for
   * every sample. Clears the KV cache of the sequence it uses. An entry is `-Infinity` where
   * llama.cpp gives the token no probability.
   *
   * @throws ModelRequestError when llama.cpp fails
   */
  tokenLogprobs(tokens: readonly number[]): Promise<number[]> {
    return this.withSequence(undefined, async (sequence) => {
      try {
        await sequence.clearHistory();
        const values: number[] = [];
        for (let start = 0; start < tokens.length - 1; start += LOGPROB_CHUNK) {
          const end = Math.min(start + LOGPROB_CHUNK, tokens.length - 1);
          const input: ControlledEvaluateInputItem[] = tokens.slice(start, end).map((token) => [token as Token, { generateNext: { probabilities: true } }]);
          const output = await sequence.controlledEvaluate(input);
          for (let index = start; index < end; index += 1) {
            const probability = output[index - start]?.next.probabilities?.get(tokens[index + 1] as Token) ?? 0;
            values.push(Math.log(probability));
          }
        }
        return values;
      } catch (error) {
        throw new ModelRequestError(`llama.cpp could not score ${tokens.length} tokens: ${(error as Error).message}`, { cause: error });
      }
    });
  }

  /**
   * Samples a continuation of `promptTokens` (used as given: chat template and BOS are the
   * caller's) with llama.cpp's sampler over the full vocabulary, or the `samplingTopK` most likely
   * tokens when that is set (no top-p or min-p), at
   * `options.temperature` (0 = greedy) with `options.seed`, stopping after an end-of-generation
   * token (EOS, end of turn; it is kept in `tokens`) or `options.maxTokens` tokens. `logprobs[i]`
   * is the natural-log probability llama.cpp's sampler chain gave `tokens[i]` (its confidence:
   * after temperature and any repetition penalty, so the distribution sampled from). It runs on
   * the free sequence whose KV cache shares the longest prefix with `promptTokens`, and reuses
   * that prefix.
   *
   * @param promptTokens at least one token id, all within the model's context window with `options.maxTokens`
   * @throws ModelRequestError when the prompt is empty or too long, llama.cpp fails, or `options.signal` aborts
   */
  sampleTokens(promptTokens: readonly number[], options: GenerateOptions): Promise<TokenSample> {
    const shared = (sequence: LlamaContextSequence) => sequence.compareContextTokens(promptTokens as Token[]).firstDifferentIndex;
    return this.withSequence(shared, (sequence) => this.sampleNow(sequence, promptTokens, options));
  }

  /** Runs `work` on a free sequence (the one `score` ranks highest), holding the lock shared. */
  private withSequence<T>(score: ((sequence: LlamaContextSequence) => number) | undefined, work: (sequence: LlamaContextSequence) => Promise<T>): Promise<T> {
    return this.lock.shared(async () => {
      const pool = this.sequences;
      const sequence = await pool.take(score);
      try {
        return await work(sequence);
      } finally {
        pool.give(sequence);
      }
    });
  }

  private async sampleNow(sequence: LlamaContextSequence, promptTokens: readonly number[], options: GenerateOptions): Promise<TokenSample> {
    if (options.signal?.aborted) throw new ModelRequestError("generation aborted");
    if (promptTokens.length === 0) throw new ModelRequestError("cannot sample after an empty prompt");
    if (promptTokens.length + options.maxTokens > this.context.contextSize) {
      throw new ModelRequestError(`a prompt of ${promptTokens.length} tokens and ${options.maxTokens} new tokens do not fit the ${this.context.contextSize}-token context (model.contextSize)`);
    }
    try {
      // keep the cached prefix, but evaluate at least the prompt's last token: sampling needs its logits
      const reused = Math.min(sequence.compareContextTokens(promptTokens as Token[]).firstDifferentIndex, promptTokens.length - 1);
      if (reused < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: reused, end: sequence.nextTokenIndex }]);
      const tokens: number[] = [];
      const logprobs: number[] = [];
      let finishReason: TokenSample["finishReason"] = "length";
      if (options.maxTokens > 0) {
        const grammar = options.grammar === undefined ? undefined : await this.grammarOf(options.grammar);
        const stream = sequence.evaluateWithMetadata(promptTokens.slice(sequence.nextTokenIndex) as Token[], { confidence: true }, {
          ...(grammar === undefined ? {} : { grammarEvaluationState: new LlamaGrammarEvaluationState({ model: this.model, grammar }) }),
          temperature: options.temperature,
          topK: this.settings.samplingTopK ?? 0,
          topP: 1,
          minP: 0,
          yieldEogToken: true,
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(this.repeatPenalty === 1 ? {} : { repeatPenalty: { penalty: this.repeatPenalty, punishTokens: () => tokens as Token[] } }),
          ...(options.repetitionPenalty ? { dryRepeatPenalty: { strength: options.repetitionPenalty, ...DRY_SETTINGS, sequenceBreakers: [...DRY_SETTINGS.sequenceBreakers] } } : {}),
        });
        for await (const next of stream) {
          if (options.signal?.aborted) throw new ModelRequestError("generation aborted");
          tokens.push(next.token);
          logprobs.push(Math.log(next.confidence));
          if (this.model.isEogToken(next.token)) {
            finishReason = "stop";
            break;
          }
          if (tokens.length >= options.maxTokens) break;
        }
      }
      return { tokens, logprobs, finishReason };
    } catch (error) {
      if (error instanceof ModelRequestError) throw error;
      if (options.signal?.aborted) throw new ModelRequestError("generation aborted", { cause: error });
      throw new ModelRequestError(`llama.cpp sampling failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Token ids of `text` in this model's vocabulary; special-token text such as `<bos>` becomes its token, no BOS is added. */
  tokenize(text: string): number[] {
    return Array.from(this.model.tokenize(text, true));
  }

  /**
   * Generates one reply. A plain chat goes through node-llama-cpp's chat session (its chat wrapper
   * for the model). A chat with tools (`options.tools`, or a `tool` message) is rendered by the
   * model's own Jinja chat template (the GGUF's `tokenizer.chat_template`; Gemma GGUFs without one
   * get {@link GEMMA_FALLBACK_TEMPLATE}) with the tools, and sampled as tokens
   * ({@link sampleTokens}), so the result carries `promptTokens`, `tokens` and `logprobs` and the
   * text keeps the model's `<tool_call>` markup.
   *
   * @throws ModelRequestError when the last message is not the user's (a plain chat) or llama.cpp
   *   fails; for a chat with tools also when the GGUF has no chat template (and is not a Gemma) or
   *   its template does not render tools
   */
  /** Text of `tokens` in this model's vocabulary, special tokens spelled out (`<bos>`, `<start_of_turn>`) unless `specialTokens` is false. */
  detokenize(tokens: readonly number[], specialTokens = true): string {
    return this.model.detokenize(tokens as Token[], specialTokens);
  }

  generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    if ((options.tools?.length ?? 0) > 0 || messages.some((message) => message.role === "tool")) return this.generateWithTemplate(messages, options);
    return this.withSequence(undefined, (sequence) => this.generateNow(sequence, messages, options));
  }

  private async generateWithTemplate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const tokens = this.model.tokens;
    const special = Object.fromEntries(
      [
        ["bos_token", tokens.bosString],
        ["eos_token", tokens.eosString],
      ].filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
    const promptTokens = this.tokenize(this.templateOfModel().render(messages, options.tools, special));
    const sample = await this.sampleTokens(promptTokens, options);
    const text = this.model.detokenize(sample.tokens.filter((token) => !this.model.isEogToken(token as Token)) as Token[]);
    return { text, tokens: sample.tokens, logprobs: sample.logprobs, promptTokens, finishReason: sample.finishReason };
  }

  /** The GGUF's chat template, or envforge's Gemma fallback for a Gemma GGUF without one. */
  private templateOfModel(): ChatTemplate {
    if (this.chatTemplate !== null) return this.chatTemplate;
    const metadata = this.model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown }; general?: { architecture?: unknown } };
    const own = metadata.tokenizer?.chat_template;
    const architecture = String(metadata.general?.architecture ?? "");
    let template: ChatTemplate;
    try {
      if (typeof own === "string") template = ChatTemplate.compile(own, `${this.id} (GGUF key tokenizer.chat_template)`);
      else if (architecture.startsWith("gemma")) template = ChatTemplate.compile(readFileSync(GEMMA_FALLBACK_TEMPLATE, "utf8"), GEMMA_FALLBACK_TEMPLATE);
      else throw new Error(`${this.id} carries no chat template (tokenizer.chat_template) and is not a Gemma model`);
    } catch (error) {
      throw new ModelRequestError(`cannot render a chat with tools for ${this.id}: ${(error as Error).message}`, { cause: error });
    }
    this.chatTemplate = template;
    return template;
  }

  private async generateNow(sequence: LlamaContextSequence, messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const last = messages.at(-1);
    if (last === undefined || last.role !== "user") {
      throw new ModelRequestError("the last chat message must come from the user");
    }
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    try {
      session.setChatHistory(toHistory(messages.slice(0, -1)));
      const grammar = options.grammar === undefined ? undefined : await this.grammarOf(options.grammar);
      const result = await session.promptWithMeta(last.content, {
        ...(grammar === undefined ? {} : { grammar }),
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.signal ? { signal: options.signal, stopOnAbortSignal: true } : {}),
        ...(this.repeatPenalty === 1 ? {} : { repeatPenalty: { penalty: this.repeatPenalty } }),
        ...(options.repetitionPenalty ? { dryRepeatPenalty: { strength: options.repetitionPenalty, ...DRY_SETTINGS, sequenceBreakers: [...DRY_SETTINGS.sequenceBreakers] } } : {}),
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

  /**
   * The compiled grammar of a GBNF text (cached).
   * @throws ModelRequestError (not retryable) when llama.cpp rejects the grammar
   */
  private grammarOf(gbnf: string): Promise<LlamaGrammar> {
    let grammar = this.grammars.get(gbnf);
    if (grammar === undefined) {
      grammar = this.llama.createGrammar({ grammar: gbnf }).catch((error: unknown) => {
        this.grammars.delete(gbnf);
        throw new ModelRequestError(`llama.cpp rejected the grammar: ${(error as Error).message}`, { cause: error });
      });
      this.grammars.set(gbnf, grammar);
    }
    return grammar;
  }

  /** Waits for the calls running now, then releases the context, the model and llama.cpp. */
  close(): Promise<void> {
    return this.lock.exclusive(async () => {
      await this.context.dispose();
      await this.model.dispose();
      await this.llama.dispose();
    });
  }
}

interface Opened {
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly adapter: LoraAdapterOptions | null;
}

async function open(llama: Llama, options: LlamaCppModelOptions, adapter: LoraAdapterOptions | null, baseInfo?: GgufFileInfo): Promise<Opened> {
  if (adapter !== null) await checkLoraAdapter(adapter.filePath, baseInfo ?? (await readGgufFileInfo(options.modelPath, { logWarnings: false })));
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: options.modelPath });
  } catch (error) {
    throw new ModelUnavailableError(`llama.cpp could not load ${options.modelPath}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return { model, context: await openContext(model, options, adapter), adapter };
  } catch (error) {
    await model.dispose();
    throw error;
  }
}

async function openContext(model: LlamaModel, options: LlamaCppModelOptions, adapter: LoraAdapterOptions | null): Promise<LlamaContext> {
  try {
    return await model.createContext({
      contextSize: options.contextSize ?? 4096,
      sequences: options.sequences ?? 1,
      ...(options.threads ? { threads: options.threads } : {}),
      ...(adapter === null ? {} : { lora: { adapters: [{ filePath: adapter.filePath, scale: adapter.scale ?? 1 }] } }),
    });
  } catch (error) {
    const what = adapter === null ? options.modelPath : `${options.modelPath} with LoRA adapter ${adapter.filePath}`;
    throw new ModelUnavailableError(`llama.cpp could not open a context on ${what}: ${(error as Error).message}`, { cause: error });
  }
}

/** Every sequence of a fresh context, as a pool. */
function poolOf(context: LlamaContext): ItemPool<LlamaContextSequence> {
  return new ItemPool(Array.from({ length: context.totalSequences }, () => context.getSequence()));
}

/** Size and modification time: what tells a rewritten adapter file from the one loaded. */
function fileSignature(path: string): string {
  const stat = statSync(path);
  return `${stat.size}:${stat.mtimeMs}`;
}

/**
 * The DRY sampler's settings for {@link GenerateOptions.repetitionPenalty}: repeats of up to 4 tokens
 * (identifiers, `instance["a"]`) go free, only the completion's last 512 tokens count (not the prompt, so
 * a repair turn may keep the lines it fixes), and newlines, quotes and colons break sequences.
 */
const DRY_SETTINGS = { allowedLength: 4, lastTokens: 512, sequenceBreakers: ["\n", ":", '"', "'", "*"] } as const;

function toHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  return messages.map((message): ChatHistoryItem => {
    if (message.role === "system") return { type: "system", text: message.content };
    if (message.role === "user") return { type: "user", text: message.content };
    return { type: "model", response: [message.content] };
  });
}
