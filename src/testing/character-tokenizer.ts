import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The chat template of {@link characterTokenizerFolder}: `<bos>`, `<turn>role\n…<end>` turns, an open assistant turn. */
export const CHARACTER_CHAT_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}<turn>{{ message['role'] }}\n{{ message['content'] }}<end>{% endfor %}{% if add_generation_prompt %}<turn>assistant\n{% endif %}";

/**
 * A character-level Hugging Face tokenizer folder with 54 ids (the tiny model has 64):
 * specials 0-5, then space, a-z, digits and some punctuation; input is lower-cased, other
 * characters become `<unk>`. Its chat template writes `<bos>`, `<turn>role\n…<end>` turns
 * and an open assistant turn (or `chatTemplate`; null = none).
 * Test fixture: a real tokenizer that `@huggingface/tokenizers` and transformers both load.
 */
export function characterTokenizerFolder(folder: string, chatTemplate: string | null = CHARACTER_CHAT_TEMPLATE): string {
  const specials = ["<pad>", "<bos>", "<eos>", "<unk>", "<turn>", "<end>"];
  const pieces = [...specials, ..." abcdefghijklmnopqrstuvwxyz0123456789.,:;!?'\n-()"];
  const vocab = Object.fromEntries(pieces.map((piece, id) => [piece, id]));
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, "tokenizer.json"),
    JSON.stringify({
      version: "1.0",
      added_tokens: specials.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: "Lowercase" },
      pre_tokenizer: null,
      post_processor: null,
      decoder: { type: "Fuse" },
      model: { type: "BPE", vocab, merges: [], unk_token: "<unk>", dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false },
    }),
  );
  writeFileSync(
    join(folder, "tokenizer_config.json"),
    JSON.stringify({
      bos_token: "<bos>",
      eos_token: "<eos>",
      unk_token: "<unk>",
      pad_token: "<pad>",
      ...(chatTemplate === null ? {} : { chat_template: chatTemplate }),
    }),
  );
  return folder;
}
