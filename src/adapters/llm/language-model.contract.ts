import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelRequestError, type LanguageModel } from "../../spec/index.js";

const QUESTION = [
  { role: "system" as const, content: "Answer with one word." },
  { role: "user" as const, content: "What colour is the sky on a clear day?" },
];

/**
 * The contract every {@link LanguageModel} provider must honour, run against a
 * real model. `create` opens it; the suite closes it.
 */
export function languageModelContract(name: string, create: () => Promise<LanguageModel>): void {
  describe(`LanguageModel contract: ${name}`, () => {
    let model: LanguageModel;
    beforeAll(async () => {
      model = await create();
    });
    afterAll(async () => {
      await model.close();
    });

    it("answers a chat with text and a finish reason", async () => {
      const generation = await model.generate(QUESTION, { maxTokens: 16, temperature: 0 });
      expect(generation.text.trim().length).toBeGreaterThan(0);
      expect(["stop", "length"]).toContain(generation.finishReason);
      if (generation.tokens) expect(generation.tokens.length).toBeGreaterThan(0);
      if (generation.logprobs) expect(generation.logprobs).toHaveLength(generation.tokens?.length ?? -1);
    });

    it("stops at maxTokens", async () => {
      const generation = await model.generate(
        [{ role: "user", content: "Count from one to one hundred in words, separated by commas." }],
        { maxTokens: 6, temperature: 0 },
      );
      expect(generation.finishReason).toBe("length");
      if (generation.tokens) expect(generation.tokens.length).toBeLessThanOrEqual(8);
      expect(generation.text.length).toBeLessThan(80);
    });

    it("is deterministic at temperature 0", async () => {
      const first = await model.generate(QUESTION, { maxTokens: 12, temperature: 0, seed: 1 });
      const second = await model.generate(QUESTION, { maxTokens: 12, temperature: 0, seed: 1 });
      expect(second.text).toBe(first.text);
    });

    it("continues a multi-turn chat", async () => {
      const generation = await model.generate(
        [
          { role: "user", content: "Remember the number 7." },
          { role: "assistant", content: "OK." },
          { role: "user", content: "Which number did I ask you to remember? Reply with the digit." },
        ],
        { maxTokens: 8, temperature: 0 },
      );
      expect(generation.text.trim().length).toBeGreaterThan(0);
    });

    it("rejects with a ModelRequestError when aborted", async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        model.generate(QUESTION, { maxTokens: 200, temperature: 0, signal: controller.signal }),
      ).rejects.toBeInstanceOf(ModelRequestError);
    });
  });
}
