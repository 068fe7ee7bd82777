import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBE_COMPLETION, PROBE_MESSAGES } from "../../../core/selfplay/index.js";
import { ConfigError, ModelRequestError, type ChatMessage, type ToolDefinition } from "../../../spec/index.js";
import { REFERENCE_TRAINER_DIR } from "../reference/reference-trainer-process.js";
import { LocalChatTokenizer } from "./local-chat-tokenizer.js";

const FIXTURES = fileURLToPath(new URL("../../../testing/tokenizer-fixtures.py", import.meta.url));
const PYTHON = join(REFERENCE_TRAINER_DIR, ".venv/bin/python");

/** Chats whose prompt ids must equal transformers' `apply_chat_template(chat, add_generation_prompt=True)`. */
const CHATS: readonly (readonly ChatMessage[])[] = [
  [
    { role: "system", content: "You are the Solver. Reply with one action." },
    { role: "user", content: "The door is locked. What now?" },
  ],
  [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Guess the secret number between 1 and 10." },
    { role: "assistant", content: "My guess is 7." },
    { role: "user", content: "Too high.\n\nAgain:" },
    { role: "assistant", content: "  3  " },
    { role: "user", content: "Correct!" },
  ],
  [{ role: "user", content: "Größe, café, naïve, 日本語, emoji 🙂🚀, tab\there, “quotes” — dash" }],
  [{ role: "user", content: "" }],
  [
    { role: "system", content: "" },
    { role: "user", content: "   \n\n  spaces and newlines  \n" },
  ],
  [{ role: "user", content: "It's 12345 o'clock; I'LL say \"hi\" , then . stop" }],
  PROBE_MESSAGES,
];

/** Tool chats whose prompt ids must equal transformers' `apply_chat_template(messages, tools=..., add_generation_prompt=True)` under Qwen2.5's template. */
const TOOL_CHATS: readonly { readonly messages: readonly ChatMessage[]; readonly tools: readonly ToolDefinition[] }[] = [
  {
    tools: [
      { name: "list_accounts", description: "The names of every account.", parameters: { type: "object", properties: {}, additionalProperties: false } },
      {
        name: "transfer",
        description: "Moves credits <from> one account & to another — 'quoted', ünïcødé.",
        parameters: { type: "object", properties: { from_account: { type: "string", description: "payer" }, amount: { type: "integer", minimum: 1 } }, required: ["from_account", "amount"] },
      },
    ],
    messages: [
      { role: "user", content: "Bring 'alder' to 57 credits." },
      { role: "assistant", content: '<tool_call>\n{"name": "list_accounts", "arguments": {}}\n</tool_call>' },
      { role: "tool", content: "Accounts: alder, birch" },
      { role: "assistant", content: '<tool_call>\n{"name": "transfer", "arguments": {"from_account": "birch", "amount": 5}}\n</tool_call>' },
      { role: "tool", content: "Moved 5 credits." },
    ],
  },
  {
    tools: [{ name: "get_balance", description: "One balance.", parameters: { type: "object", properties: { account: { type: "string" } }, required: ["account"] } }],
    messages: [
      { role: "system", content: "You are the Solver." },
      { role: "user", content: "What does birch hold?" },
    ],
  },
];

/** Texts whose ids must equal transformers' `encode(text, add_special_tokens=False)`. */
const TEXTS: readonly string[] = [PROBE_COMPLETION, "", " leading space", "Hello , world .", "Größe 日本語 🙂", "a\n\nb\tc", "3.14159 and 1000000"];

interface Truth {
  readonly chats: number[][];
  readonly texts: number[][];
  readonly decoded: { tokens: number[]; text: string }[];
  readonly vocabulary: number;
}

interface ToolTruth {
  readonly tool_chats: number[][];
}

describe("LocalChatTokenizer: bad folders", () => {
  const root = mkdtempSync(join(tmpdir(), "envforge-tokenizer-bad-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const folder = (name: string, files: Record<string, string>): string => {
    const path = join(root, name);
    mkdirSync(path);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
    return path;
  };
  const minimalTokenizer = JSON.stringify({
    added_tokens: [{ id: 0, content: "<s>", special: true }],
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    model: { type: "BPE", vocab: { "<s>": 0, a: 1, b: 2 }, merges: [] },
  });

  it("refuses a missing folder and a file in its place, naming the path and the fix", async () => {
    const missing = join(root, "no-such-folder");
    await expect(LocalChatTokenizer.open(missing)).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalChatTokenizer.open(missing)).rejects.toThrow(new RegExp(`trainer\\.tokenizer: the folder ${missing} does not exist; download .*hf download <model> tokenizer\\.json`));
    const file = join(root, "a-file");
    writeFileSync(file, "{}");
    await expect(LocalChatTokenizer.open(file)).rejects.toThrow(/is not a folder/);
  });

  it("refuses a folder without tokenizer.json or tokenizer_config.json", async () => {
    const empty = folder("empty", {});
    await expect(LocalChatTokenizer.open(empty)).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalChatTokenizer.open(empty)).rejects.toThrow(/empty\/tokenizer\.json is missing or unreadable .*hf download <model> tokenizer\.json tokenizer_config\.json chat_template\.jinja --local-dir/);
    const noConfig = folder("no-config", { "tokenizer.json": minimalTokenizer });
    await expect(LocalChatTokenizer.open(noConfig)).rejects.toThrow(/no-config\/tokenizer_config\.json is missing/);
  });

  it("refuses corrupt JSON, naming the file", async () => {
    const corrupt = folder("corrupt", { "tokenizer.json": '{"model": {"type": "BPE"', "tokenizer_config.json": "{}" });
    await expect(LocalChatTokenizer.open(corrupt)).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalChatTokenizer.open(corrupt)).rejects.toThrow(/corrupt\/tokenizer\.json is not valid JSON/);
    const corruptConfig = folder("corrupt-config", { "tokenizer.json": minimalTokenizer, "tokenizer_config.json": "not json" });
    await expect(LocalChatTokenizer.open(corruptConfig)).rejects.toThrow(/corrupt-config\/tokenizer_config\.json is not valid JSON/);
    const notObject = folder("array", { "tokenizer.json": "[1, 2]", "tokenizer_config.json": "{}" });
    await expect(LocalChatTokenizer.open(notObject)).rejects.toThrow(/array\/tokenizer\.json is not a JSON object/);
  });

  it("refuses a folder without a chat template, saying where it looked and how to fix it", async () => {
    const base = folder("base-model", { "tokenizer.json": minimalTokenizer, "tokenizer_config.json": JSON.stringify({ bos_token: "<s>" }) });
    await expect(LocalChatTokenizer.open(base)).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalChatTokenizer.open(base)).rejects.toThrow(
      /no chat template in .*base-model: looked for chat_template\.jinja and the chat_template key .* of tokenizer_config\.json\. Use the tokenizer of the model's instruct\/chat variant/,
    );
    const unnamed = folder("unnamed-templates", {
      "tokenizer.json": minimalTokenizer,
      "tokenizer_config.json": JSON.stringify({ chat_template: [{ name: "tool_use", template: "{{ messages }}" }] }),
    });
    await expect(LocalChatTokenizer.open(unnamed)).rejects.toThrow(/no chat template/);
  });

  it("refuses a chat template that renders nothing, naming the template", async () => {
    for (const [name, template] of [["empty-template", ""], ["other-variables", "{{ conversation }}"]] as const) {
      const path = folder(name, { "tokenizer.json": minimalTokenizer, "tokenizer_config.json": "{}", "chat_template.jinja": template });
      await expect(LocalChatTokenizer.open(path)).rejects.toBeInstanceOf(ConfigError);
      await expect(LocalChatTokenizer.open(path)).rejects.toThrow(new RegExp(`${name}/chat_template\.jinja renders nothing for a one-message chat`));
    }
  });

  it("maps a word the vocabulary lacks to the unknown token, as transformers does", async () => {
    const wordLevel = (unknown: string | null) =>
      JSON.stringify({
        added_tokens: [{ id: 0, content: "[UNK]", special: true }],
        normalizer: null,
        pre_tokenizer: { type: "Whitespace" },
        post_processor: null,
        decoder: null,
        model: { type: "WordLevel", vocab: { "[UNK]": 0, hello: 1, world: 2, Hello: 3, ".": 4 }, ...(unknown === null ? {} : { unk_token: unknown }) },
      });
    const config = JSON.stringify({ chat_template: "{% for message in messages %}{{ message.content }} {% endfor %}" });
    const withUnknown = await LocalChatTokenizer.open(folder("word-level", { "tokenizer.json": wordLevel("[UNK]"), "tokenizer_config.json": config }));
    expect(await withUnknown.encodeText("hello world foo")).toEqual([1, 2, 0]);
    const without = await LocalChatTokenizer.open(folder("word-level-no-unknown", { "tokenizer.json": wordLevel(null), "tokenizer_config.json": config }));
    await expect(without.encodeText("hello foo")).rejects.toBeInstanceOf(ModelRequestError);
    await expect(without.encodeText("hello foo")).rejects.toThrow(/has no id for "foo" and no unknown token/);
  });

  it("refuses a tokenizer.json the library cannot load and a template that does not parse", async () => {
    const unknownModel = folder("unknown-model", {
      "tokenizer.json": JSON.stringify({ added_tokens: [], model: { type: "NoSuchModel" } }),
      "tokenizer_config.json": JSON.stringify({ chat_template: "{{ bos_token }}" }),
    });
    await expect(LocalChatTokenizer.open(unknownModel)).rejects.toThrow(/unknown-model\/tokenizer\.json cannot be loaded by @huggingface\/tokenizers/);
    const badTemplate = folder("bad-template", { "tokenizer.json": minimalTokenizer, "tokenizer_config.json": "{}", "chat_template.jinja": "{% for message in messages %}" });
    await expect(LocalChatTokenizer.open(badTemplate)).rejects.toThrow(/the chat template in .*bad-template\/chat_template\.jinja does not parse/);
  });
});

/**
 * Ground truth from Python: two tokenizer folders are trained at test time with the
 * components of Gemma (byte-fallback BPE, template in chat_template.jinja) and of
 * Llama 3 (split regex + byte-level BPE, template under tokenizer_config.json's
 * chat_template key, clean_up_tokenization_spaces true), and transformers gives the ids.
 */
describe("LocalChatTokenizer: the ids transformers gives", () => {
  const root = mkdtempSync(join(tmpdir(), "envforge-tokenizer-"));
  let truth: Record<"metaspace" | "byte-level", Truth> & { "qwen-tools": ToolTruth };
  beforeAll(() => {
    const result = spawnSync(PYTHON, [FIXTURES, root], { input: JSON.stringify({ chats: CHATS, texts: TEXTS, tool_chats: TOOL_CHATS }), encoding: "utf8", timeout: 60_000 });
    if (result.status !== 0) throw new Error(`tokenizer-fixtures.py failed (${result.status}): ${result.stderr}`);
    truth = JSON.parse(result.stdout);
  }, 70_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  for (const family of ["metaspace", "byte-level"] as const) {
    it(`${family}: encodeChat, encodeText and decode equal transformers`, async () => {
      const tokenizer = await LocalChatTokenizer.open(join(root, family));
      const expected = truth[family];
      for (const [index, chat] of CHATS.entries()) expect(await tokenizer.encodeChat(chat), `chat ${index}`).toEqual(expected.chats[index]);
      for (const [index, text] of TEXTS.entries()) expect(await tokenizer.encodeText(text), `text ${JSON.stringify(text)}`).toEqual(expected.texts[index]);
      // decode drops special tokens, cut multi-byte characters become U+FFFD as in transformers, unknown ids are skipped
      for (const { tokens, text } of expected.decoded) expect(await tokenizer.decode(tokens), `decode ${JSON.stringify(tokens)}`).toBe(text);
      expect(await tokenizer.decode([])).toBe("");
      // the rendered prompt starts with exactly one BOS: the template's, none added by the post-processor
      const bos = (await tokenizer.encodeText(family === "metaspace" ? "<bos>" : "<|begin_of_text|>"))[0];
      const prompt = await tokenizer.encodeChat(CHATS[0]!);
      expect(prompt[0]).toBe(bos);
      expect(prompt.filter((token) => token === bos)).toHaveLength(1);
    });
  }

  it("renders a tool chat (tools, <tool_call> replies, tool results) under Qwen2.5's template as transformers does", async () => {
    const tokenizer = await LocalChatTokenizer.open(join(root, "qwen-tools"));
    for (const [index, { messages, tools }] of TOOL_CHATS.entries()) expect(await tokenizer.encodeChat(messages, tools), `tool chat ${index}`).toEqual(truth["qwen-tools"].tool_chats[index]);
    // the tools are in the prompt: without them it is shorter
    expect((await tokenizer.encodeChat(TOOL_CHATS[1]!.messages)).length).toBeLessThan(truth["qwen-tools"].tool_chats[1]!.length);
  });

  it("refuses tools under a template that does not render them (Gemma 3's), naming the template", async () => {
    const tokenizer = await LocalChatTokenizer.open(join(root, "metaspace"));
    const refused = tokenizer.encodeChat(TOOL_CHATS[1]!.messages.slice(1), TOOL_CHATS[1]!.tools);
    await expect(refused).rejects.toBeInstanceOf(ModelRequestError);
    await expect(refused).rejects.toThrow(/chat_template\.jinja does not render tools/);
  });

  it("takes chat_template.jinja over the config key, as transformers does", async () => {
    const folder = join(root, "both-templates");
    cpSync(join(root, "metaspace"), folder, { recursive: true });
    const config = JSON.parse(readFileSync(join(folder, "tokenizer_config.json"), "utf8"));
    writeFileSync(join(folder, "tokenizer_config.json"), JSON.stringify({ ...config, chat_template: "IGNORED {{ messages[0].content }}" }));
    const tokenizer = await LocalChatTokenizer.open(folder);
    expect(await tokenizer.encodeChat(CHATS[0]!)).toEqual(truth.metaspace.chats[0]);
  });

  it("uses the template named default from a list, and reports a template's raise_exception as a ModelRequestError", async () => {
    const folder = join(root, "listed-templates");
    cpSync(join(root, "metaspace"), folder, { recursive: true });
    const template = readFileSync(join(folder, "chat_template.jinja"), "utf8");
    rmSync(join(folder, "chat_template.jinja"));
    const config = JSON.parse(readFileSync(join(folder, "tokenizer_config.json"), "utf8"));
    writeFileSync(
      join(folder, "tokenizer_config.json"),
      JSON.stringify({ ...config, chat_template: [{ name: "tool_use", template: "TOOLS" }, { name: "default", template }] }),
    );
    const tokenizer = await LocalChatTokenizer.open(folder);
    expect(await tokenizer.encodeChat(CHATS[1]!)).toEqual(truth.metaspace.chats[1]);
    // Gemma's template requires alternating user/assistant turns
    const refused = tokenizer.encodeChat([{ role: "assistant", content: "first" }]);
    await expect(refused).rejects.toBeInstanceOf(ModelRequestError);
    await expect(tokenizer.encodeChat([{ role: "assistant", content: "first" }])).rejects.toThrow(/refused the messages: Conversation roles must alternate/);
  });
});
