import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { TrainerRequestError, type ChatMessage, type ToolDefinition } from "../../../spec/index.js";
import { GEMMA_FALLBACK_TEMPLATE } from "../../llm/chat-template.js";
import { LocalChatTokenizer } from "../tinker/local-chat-tokenizer.js";
import type { ChatTokenizer } from "../tinker/tinker-language-model.js";

/**
 * The reference trainer's chat template for tokenizers without one (the Gemma turn format),
 * the file its `chat_prompt` renders; {@link openReferenceTokenizerMirror} renders the same file.
 */
export const REFERENCE_FALLBACK_TEMPLATE = GEMMA_FALLBACK_TEMPLATE;

/**
 * The folder where the reference trainer keeps a GGUF model converted to transformers'
 * format, tokenizer files included (`<file>.gguf.hf`, written by its `model_loading.py` at
 * the first start on that file).
 */
export function convertedModelFolder(gguf: string): string {
  return `${gguf}.hf`;
}

/** A tool of {@link PARITY_CHATS}' tool chat: nested JSON Schema, non-ASCII text, characters an HTML-escaping `tojson` would change. */
const PARITY_TOOLS: readonly ToolDefinition[] = [
  {
    name: "transfer",
    description: "Moves credits <from> one account & to another — 'quoted'.",
    parameters: { type: "object", properties: { from_account: { type: "string" }, amount: { type: "integer", minimum: 1 } }, required: ["from_account", "amount"], additionalProperties: false },
  },
];

/**
 * Chats the mirror must tokenise exactly as the trainer does before it is used: a system
 * prompt, several system messages, a multi-turn exchange, non-ASCII text and spacing, and a
 * tool environment's chat (tools, a `<tool_call>` reply and its `tool` result).
 */
const PARITY_CHATS: readonly (readonly ChatMessage[])[] = [
  [{ role: "user", content: "Hello." }],
  [
    { role: "system", content: "You are the Solver. Answer with one action." },
    { role: "user", content: "Observation: a 3 x 3 grid\n. # .\n. . #\nAct." },
  ],
  [
    { role: "system", content: "" },
    { role: "system", content: "Rules." },
    { role: "user", content: "guess a number in [1, 100]" },
    { role: "assistant", content: "guess 50" },
    { role: "user", content: "higher — ünïcødé 🎲\t tabs  and   spaces\n\n" },
  ],
  [
    { role: "user", content: "Bring 'alder' to 57 credits." },
    { role: "assistant", content: '<tool_call>\n{"name": "transfer", "arguments": {"from_account": "birch", "amount": 5}}\n</tool_call>' },
    { role: "tool", content: "Moved 5 credits from 'birch' to 'alder'." },
  ],
];

/** Index of the parity chat that is rendered with {@link PARITY_TOOLS}. */
const TOOL_CHAT = 3;

/** Texts whose tokens the mirror must decode as the trainer does (byte fallback, special tokens, spacing). */
const PARITY_TEXTS: readonly string[] = ["guess 50", "  two  spaces\nand a 🎲 — ünï\t", "<end_of_turn> a special token's text"];

/** What {@link openReferenceTokenizerMirror} found. */
export type TokenizerMirror =
  | { readonly kind: "mirror"; readonly tokenizer: LocalChatTokenizer; readonly folder: string }
  | { readonly kind: "trainer"; readonly reason: string };

/**
 * A local copy of the reference trainer's chat tokenizer for a GGUF model, so that each
 * sampled turn is tokenised and decoded in-process instead of by two HTTP calls to the
 * trainer (about a fifth of a Solver turn on 2 cores, issue 14's engine utilisation): the
 * trainer's converted folder ({@link convertedModelFolder}) read by {@link LocalChatTokenizer}
 * with the trainer's own fallback template ({@link REFERENCE_FALLBACK_TEMPLATE}). It is used
 * only when it gives the trainer's token ids for fixed chats and the trainer's text for fixed
 * tokens (one call each to `trainer`); otherwise, or when the folder is missing or unreadable,
 * the answer says why and the caller keeps the trainer's tokenizer. Never throws for a bad
 * folder; errors of `trainer` itself propagate.
 *
 * @param gguf the GGUF file the reference trainer was started on (after it started, so it converted it)
 * @param trainer the trainer's tokenizer routes ({@link ReferenceTrainerTokenizer}), the reference
 * @throws what `trainer` throws when the trainer cannot be reached
 */
export async function openReferenceTokenizerMirror(gguf: string, trainer: ChatTokenizer): Promise<TokenizerMirror> {
  const folder = convertedModelFolder(gguf);
  if (!existsSync(folder)) return { kind: "trainer", reason: `the trainer's converted folder ${folder} does not exist` };
  let tokenizer: LocalChatTokenizer;
  try {
    const fallback = { text: await readFile(REFERENCE_FALLBACK_TEMPLATE, "utf8"), from: REFERENCE_FALLBACK_TEMPLATE };
    tokenizer = await LocalChatTokenizer.open(folder, { fallbackTemplate: fallback });
  } catch (error) {
    return { kind: "trainer", reason: `the tokenizer in ${folder} cannot be read: ${(error as Error).message}` };
  }
  for (const [index, chat] of PARITY_CHATS.entries()) {
    const tools = index === TOOL_CHAT ? PARITY_TOOLS : undefined;
    // a template without tools is refused by the trainer and the local tokenizer alike: nothing to compare
    const expected = await trainer.encodeChat(chat, tools).catch((error: unknown) => (tools !== undefined && error instanceof TrainerRequestError ? null : Promise.reject(error)));
    if (expected === null) continue;
    const got = await tokenizer.encodeChat(chat, tools).catch(() => null);
    if (got === null || !sameTokens(got, expected)) return { kind: "trainer", reason: `the local tokenizer of ${folder} tokenises parity chat ${index} unlike the trainer` };
  }
  for (const [index, text] of PARITY_TEXTS.entries()) {
    const tokens = await trainer.encodeText(text);
    const [expected, got] = await Promise.all([trainer.decode(tokens), tokenizer.decode(tokens)]);
    if (got !== expected) return { kind: "trainer", reason: `the local tokenizer of ${folder} decodes parity text ${index} unlike the trainer` };
  }
  return { kind: "mirror", tokenizer, folder };
}

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((token, index) => token === b[index]);
}
