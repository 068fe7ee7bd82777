import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { ConfigError, ModelRequestError, type ChatMessage, type ToolDefinition } from "../../../spec/index.js";
import { ChatTemplate } from "../../llm/chat-template.js";
import type { ChatTokenizer } from "./tinker-language-model.js";

/** Files of a Hugging Face tokenizer folder that {@link LocalChatTokenizer} reads. */
export const TOKENIZER_FILES = {
  /** The tokenizer itself (normalizer, pre-tokenizer, model, post-processor, decoder, added tokens). */
  tokenizer: "tokenizer.json",
  /** Special tokens and, in older folders, the chat template (`chat_template` key). */
  config: "tokenizer_config.json",
  /** The chat template as its own file (transformers' format since 4.43); preferred over the key, as in transformers. */
  chatTemplate: "chat_template.jinja",
} as const;

/** The named special tokens transformers passes to a chat template (its `special_tokens_map`, `SPECIAL_TOKENS_ATTRIBUTES`). */
const SPECIAL_TOKEN_KEYS = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"] as const;

const HOW_TO_GET =
  "download the base model's tokenizer files into it, e.g. `hf download <model> tokenizer.json tokenizer_config.json chat_template.jinja --local-dir <folder>` " +
  "(`huggingface-cli download` with older huggingface_hub; a file the repository lacks is skipped)";

/**
 * A base model's chat tokenizer read from a local Hugging Face tokenizer folder, so
 * the policy can be sampled through Tinker servers that have no tokenizer routes
 * (hosted Tinker, SkyRL's Tinker server). It gives the token ids transformers gives:
 *
 * - {@link encodeChat}: the chat template rendered with `messages`,
 *   `add_generation_prompt: true`, the tools (or null), `documents` null and the named special
 *   tokens (`bos_token`, `eos_token`, …) by `@huggingface/jinja`, then encoded
 *   without added special tokens (the template writes the BOS itself), as
 *   `apply_chat_template(messages, add_generation_prompt=True)` does;
 * - {@link encodeText}: plain text without special tokens (`encode(text, add_special_tokens=False)`);
 * - {@link decode}: `decode(tokens, skip_special_tokens=True)`; ids outside the
 *   vocabulary are skipped, and `clean_up_tokenization_spaces` applies only where
 *   transformers applies it (set in the config and not a BPE model).
 *
 * Encoding and decoding are `@huggingface/tokenizers`. Open one with {@link LocalChatTokenizer.open}.
 */
export class LocalChatTokenizer implements ChatTokenizer {
  private constructor(
    private readonly tokenizer: Tokenizer,
    private readonly template: ChatTemplate,
    private readonly templateTokens: Readonly<Record<string, string>>,
    private readonly cleanUpSpaces: boolean,
    private readonly byteRuns: ByteRuns | null,
    /** Id of the model's unknown token (`model.unk_token`), for pieces the vocabulary lacks; null when it has none. */
    private readonly unknownId: number | null,
    /** The folder the tokenizer was read from. */
    readonly folder: string,
  ) {}

  /**
   * Reads the tokenizer in `folder`: `tokenizer.json`, `tokenizer_config.json`, and the
   * chat template from `chat_template.jinja` or else the config's `chat_template` key
   * (a string, or a list of `{ name, template }` of which `default` is used).
   *
   * @param folder a Hugging Face tokenizer folder (`trainer.tokenizer`)
   * @param options.fallbackTemplate the chat template used when the folder has none (the reference trainer's
   *   own fallback, `REFERENCE_FALLBACK_TEMPLATE`, for the converted Gemma GGUF); without it such a folder is refused
   * @throws ConfigError when the folder does not exist or is not a folder, either JSON
   *   file is missing or not valid JSON, no chat template is found, or the tokenizer
   *   or the template cannot be loaded, or it renders nothing for (or cannot encode) a
   *   one-message chat; the message names the file or key and the fix
   */
  static async open(folder: string, options: { readonly fallbackTemplate?: { readonly text: string; readonly from: string } } = {}): Promise<LocalChatTokenizer> {
    const kind = await stat(folder).catch(() => null);
    if (kind === null) throw new ConfigError(`trainer.tokenizer: the folder ${folder} does not exist; ${HOW_TO_GET}`);
    if (!kind.isDirectory()) throw new ConfigError(`trainer.tokenizer: ${folder} is not a folder; point it at the folder that holds ${TOKENIZER_FILES.tokenizer}`);
    const tokenizerJson = await readJson(folder, TOKENIZER_FILES.tokenizer);
    const config = await readJson(folder, TOKENIZER_FILES.config);
    const source = await chatTemplateOf(folder, config, options.fallbackTemplate ?? null);
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(tokenizerJson, config);
    } catch (error) {
      throw new ConfigError(`trainer.tokenizer: ${join(folder, TOKENIZER_FILES.tokenizer)} cannot be loaded by @huggingface/tokenizers: ${messageOf(error)}`, { cause: error });
    }
    let template: ChatTemplate;
    try {
      template = ChatTemplate.compile(source.text, source.from);
    } catch (error) {
      throw new ConfigError(`trainer.tokenizer: the chat template in ${source.from} does not parse: ${messageOf(error)}`, { cause: error });
    }
    const cleanUpSpaces =
      config.clean_up_tokenization_spaces === true &&
      (modelType(tokenizerJson) !== "BPE" || config.clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output === true);
    const unknownToken = (tokenizerJson.model as JsonObject | undefined)?.unk_token;
    const unknownId = typeof unknownToken === "string" ? (tokenizer.token_to_id(unknownToken) ?? null) : null;
    const opened = new LocalChatTokenizer(tokenizer, template, templateTokensOf(config), cleanUpSpaces, byteRunsOf(tokenizer, tokenizerJson), unknownId, folder);
    // a template that renders nothing (an empty file, a template for other variables) would only fail later, at the probe
    const smoke = await opened.encodeChat([{ role: "user", content: "Hello." }]).catch((error: unknown) => {
      throw new ConfigError(`trainer.tokenizer: ${folder} cannot encode a one-message chat (template ${source.from}): ${messageOf(error)}`, { cause: error });
    });
    if (smoke.length === 0) {
      throw new ConfigError(
        `trainer.tokenizer: the chat template in ${source.from} renders nothing for a one-message chat; use the model's own chat template (${TOKENIZER_FILES.chatTemplate} of its instruct/chat variant)`,
      );
    }
    return opened;
  }

  /**
   * Prompt tokens of `messages`, ending with an open assistant turn; `tools` go to the template's
   * `tools` ({@link ChatTemplate.render}).
   * @throws ModelRequestError (not retryable) when the chat template refuses the
   *   messages (e.g. `raise_exception` for roles that do not alternate), or tools are given and it does not render them
   */
  async encodeChat(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): Promise<readonly number[]> {
    return this.encodeText(this.template.render(messages, tools, this.templateTokens));
  }

  /**
   * Token ids of plain `text`: no chat template, no added special tokens (text that spells a
   * special token still becomes it, as in transformers). A piece the vocabulary lacks becomes
   * the model's unknown token, as in transformers (`@huggingface/tokenizers` leaves it undefined).
   * @throws ModelRequestError (not retryable) when a piece has no id and the model has no unknown token
   */
  async encodeText(text: string): Promise<readonly number[]> {
    if (text === "") return [];
    const { ids, tokens } = this.tokenizer.encode(text, { add_special_tokens: false });
    return (ids as readonly (number | undefined)[]).map((id, index): number => {
      if (id !== undefined && Number.isInteger(id)) return id;
      if (this.unknownId !== null) return this.unknownId;
      throw new ModelRequestError(`the tokenizer in ${this.folder} has no id for ${JSON.stringify(tokens[index])} and no unknown token`);
    });
  }

  /**
   * Text of `tokens` with special tokens dropped; ids outside the vocabulary are skipped.
   * A run of byte-fallback pieces (`<0xNN>`) that is not valid UTF-8, such as a character
   * cut by the token limit, becomes one U+FFFD per byte, as in the Rust `tokenizers`.
   */
  async decode(tokens: readonly number[]): Promise<string> {
    const kept = tokens.filter((token) => this.tokenizer.id_to_token(token) !== undefined && !this.byteRuns?.special.has(token));
    if (kept.length === 0) return "";
    const ids = this.byteRuns === null ? kept : this.byteRuns.repair(kept);
    return this.tokenizer.decode(ids, { skip_special_tokens: true, clean_up_tokenization_spaces: this.cleanUpSpaces });
  }
}

/**
 * Byte-fallback repair. The Rust `ByteFallback` decoder turns a run of byte pieces that is
 * not valid UTF-8 into one U+FFFD per byte; `@huggingface/tokenizers` decodes the run with
 * `TextDecoder`, which gives one U+FFFD per invalid subsequence. Rewriting each byte of such
 * a run as the three byte pieces of U+FFFD (EF BF BD) makes both give the same text. Runs
 * are counted after special tokens are dropped, as in Rust.
 */
interface ByteRuns {
  /** Ids of special added tokens (dropped before runs are found). */
  readonly special: ReadonlySet<number>;
  repair(ids: readonly number[]): number[];
}

function byteRunsOf(tokenizer: Tokenizer, tokenizerJson: JsonObject): ByteRuns | null {
  if (!hasDecoder(tokenizerJson.decoder, "ByteFallback")) return null;
  const replacement = ["<0xEF>", "<0xBF>", "<0xBD>"].map((piece) => tokenizer.token_to_id(piece));
  if (replacement.some((id) => id === undefined)) return null;
  const special = new Set([...tokenizer.get_added_tokens_decoder()].filter(([, token]) => token.special).map(([id]) => id));
  const byteOf = (id: number): number | null => {
    const match = /^<0x([0-9A-Fa-f]{2})>$/.exec(tokenizer.id_to_token(id) ?? "");
    return match === null ? null : Number.parseInt(match[1]!, 16);
  };
  const strict = new TextDecoder("utf-8", { fatal: true });
  const repair = (ids: readonly number[]): number[] => {
    const out: number[] = [];
    let run: number[] = [];
    const flush = () => {
      const bytes = Uint8Array.from(run.map((id) => byteOf(id)!));
      let valid = true;
      try {
        strict.decode(bytes);
      } catch {
        valid = false;
      }
      for (const id of run) out.push(...(valid ? [id] : (replacement as number[])));
      run = [];
    };
    for (const id of ids) {
      if (byteOf(id) !== null) {
        run.push(id);
        continue;
      }
      if (run.length > 0) flush();
      out.push(id);
    }
    if (run.length > 0) flush();
    return out;
  };
  return { special, repair };
}

function hasDecoder(decoder: unknown, type: string): boolean {
  if (typeof decoder !== "object" || decoder === null) return false;
  const config = decoder as JsonObject;
  return config.type === type || (Array.isArray(config.decoders) && config.decoders.some((inner) => hasDecoder(inner, type)));
}

type JsonObject = Record<string, unknown>;

async function readJson(folder: string, file: string): Promise<JsonObject> {
  const path = join(folder, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`trainer.tokenizer: ${path} is missing or unreadable (${messageOf(error)}); ${HOW_TO_GET}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`trainer.tokenizer: ${path} is not valid JSON (${messageOf(error)}); download it again`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`trainer.tokenizer: ${path} is not a JSON object; download it again`);
  }
  return value as JsonObject;
}

/** The chat template: `chat_template.jinja` first (as transformers), else the config's `chat_template` key, else `fallback`. */
async function chatTemplateOf(folder: string, config: JsonObject, fallback: { text: string; from: string } | null): Promise<{ text: string; from: string }> {
  const file = join(folder, TOKENIZER_FILES.chatTemplate);
  const text = await readFile(file, "utf8").catch(() => null);
  if (text !== null) return { text, from: file };
  const from = `${join(folder, TOKENIZER_FILES.config)} (key chat_template)`;
  const value = config.chat_template;
  if (typeof value === "string") return { text: value, from };
  if (Array.isArray(value)) {
    const named = value.find((entry) => typeof entry === "object" && entry !== null && entry.name === "default" && typeof entry.template === "string");
    if (named !== undefined) return { text: named.template as string, from: `${from}, the template named default` };
  }
  if (fallback !== null) return fallback;
  throw new ConfigError(
    `trainer.tokenizer: no chat template in ${folder}: looked for ${TOKENIZER_FILES.chatTemplate} and the chat_template key (a string, or a list with a template named default) of ${TOKENIZER_FILES.config}. ` +
      `Use the tokenizer of the model's instruct/chat variant, or download its ${TOKENIZER_FILES.chatTemplate} into the folder`,
  );
}

/**
 * The named special tokens that are set, as strings (`"<bos>"`, or `{ "content": "<bos>" }` in
 * older configs): what transformers (v5) passes to the template; unset ones stay undefined.
 */
function templateTokensOf(config: JsonObject): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const value = config[key];
    const content = typeof value === "string" ? value : typeof value === "object" && value !== null ? (value as JsonObject).content : undefined;
    if (typeof content === "string") tokens[key] = content;
  }
  return tokens;
}

function modelType(tokenizerJson: JsonObject): unknown {
  const model = tokenizerJson.model;
  return typeof model === "object" && model !== null ? (model as JsonObject).type : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
