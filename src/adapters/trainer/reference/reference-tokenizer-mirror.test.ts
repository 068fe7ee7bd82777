import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { characterTokenizerFolder } from "../../../testing/character-tokenizer.js";
import { LocalChatTokenizer } from "../tinker/local-chat-tokenizer.js";
import { convertedModelFolder, openReferenceTokenizerMirror, REFERENCE_FALLBACK_TEMPLATE } from "./reference-tokenizer-mirror.js";

// The reference here is a real tokenizer (a character-level Hugging Face folder read by
// LocalChatTokenizer) standing in for the trainer's routes; the parity of the mirror with the
// real reference trainer on Gemma 3 270M is checked in src/cli/open-trainer.test.ts.
describe("openReferenceTokenizerMirror", () => {
  const root = mkdtempSync(join(tmpdir(), "envforge-tokenizer-mirror-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const gemmaTurns = readFileSync(REFERENCE_FALLBACK_TEMPLATE, "utf8");
  /** The "trainer": the character tokenizer with the trainer's fallback template, as the trainer renders a template-less folder. */
  const trainer = LocalChatTokenizer.open(characterTokenizerFolder(join(root, "trainer"), gemmaTurns));
  /** A GGUF path whose converted folder is `make(folder)`. */
  const gguf = (name: string, make: (folder: string) => void): string => {
    const path = join(root, `${name}.gguf`);
    make(convertedModelFolder(path));
    return path;
  };

  it("mirrors a converted folder without a chat template through the trainer's fallback template", async () => {
    const path = gguf("plain", (folder) => characterTokenizerFolder(folder, null));
    const mirror = await openReferenceTokenizerMirror(path, await trainer);
    expect(mirror).toMatchObject({ kind: "mirror", folder: `${path}.hf` });
    if (mirror.kind !== "mirror") return;
    const chat = [
      { role: "system", content: "rules" },
      { role: "user", content: "guess" },
    ] as const;
    expect(await mirror.tokenizer.encodeChat(chat)).toEqual(await (await trainer).encodeChat(chat));
  });

  it("keeps the trainer's routes, saying why, when the folder is missing or unreadable", async () => {
    await expect(openReferenceTokenizerMirror(join(root, "absent.gguf"), await trainer)).resolves.toEqual({
      kind: "trainer",
      reason: `the trainer's converted folder ${join(root, "absent.gguf.hf")} does not exist`,
    });
    const corrupt = gguf("corrupt", (folder) => {
      characterTokenizerFolder(folder, null);
      writeFileSync(join(folder, "tokenizer.json"), "{ truncated");
    });
    const answer = await openReferenceTokenizerMirror(corrupt, await trainer);
    expect(answer.kind).toBe("trainer");
    expect(answer.kind === "trainer" && answer.reason).toMatch(/corrupt\.gguf\.hf cannot be read: .*tokenizer\.json is not valid JSON/);
  });

  it("keeps the trainer's routes when the folder's own template tokenises unlike the trainer", async () => {
    // the folder carries another chat template than the one the trainer renders
    const other = gguf("other-template", (folder) => characterTokenizerFolder(folder));
    await expect(openReferenceTokenizerMirror(other, await trainer)).resolves.toEqual({
      kind: "trainer",
      reason: `the local tokenizer of ${other}.hf tokenises parity chat 0 unlike the trainer`,
    });
  });

  it("keeps the trainer's routes when the vocabulary differs", async () => {
    const shifted = gguf("shifted", (folder) => {
      cpSync(join(root, "trainer"), folder, { recursive: true });
      const tokenizer = JSON.parse(readFileSync(join(folder, "tokenizer.json"), "utf8"));
      // swap the ids of "a" and "b": same pieces, other ids
      const vocab = tokenizer.model.vocab as Record<string, number>;
      [vocab.a, vocab.b] = [vocab.b!, vocab.a!];
      writeFileSync(join(folder, "tokenizer.json"), JSON.stringify(tokenizer));
    });
    const answer = await openReferenceTokenizerMirror(shifted, await trainer);
    expect(answer).toMatchObject({ kind: "trainer" });
    expect(answer.kind === "trainer" && answer.reason).toMatch(/shifted\.gguf\.hf tokenises parity chat \d unlike the trainer/);
  });
});
