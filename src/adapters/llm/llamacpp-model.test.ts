import { describe, expect, it } from "vitest";
import { ConfigError, ModelUnavailableError, type ChatMessage, type ToolDefinition } from "../../spec/index.js";
import { embeddedModelPath } from "./embedded-model.js";
import { languageModelContract } from "./language-model.contract.js";
import type { LlamaCppModel } from "./llamacpp-model.js";
import { classifyModelSpec, openModel } from "./open-model.js";

// Runs against the real embedded model that ./scripts/setup.sh fetches.
languageModelContract("embedded llama.cpp (Gemma 3 270M)", () => openModel("embedded"));

describe("model specs", () => {
  it("classifies every accepted form", () => {
    expect(classifyModelSpec("embedded")).toBe("embedded");
    expect(classifyModelSpec("/models/x.gguf")).toBe("gguf");
    expect(classifyModelSpec("hf:org/repo/file.gguf")).toBe("hf");
    expect(classifyModelSpec("http://localhost:8000/v1#qwen")).toBe("openai");
    expect(() => classifyModelSpec("gpt-4")).toThrowError(ConfigError);
  });

  it("reports a missing model file as ModelUnavailableError naming the fix", async () => {
    const error = await openModel("/nonexistent/model.gguf").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(/not found.*setup\.sh/);
  });

  it("puts the embedded model in the envforge cache", () => {
    expect(embeddedModelPath({ ENVFORGE_CACHE: "/c" })).toBe("/c/models/gemma-3-270m-q4_k_m.gguf");
    expect(embeddedModelPath({ XDG_CACHE_HOME: "/x" })).toBe("/x/envforge/models/gemma-3-270m-q4_k_m.gguf");
  });
});

describe("embedded llama.cpp: chats with tools (real Gemma 3 270M, envforge's fallback template)", () => {
  const tools: ToolDefinition[] = [
    { name: "get_balance", description: "The balance of one account, in credits.", parameters: { type: "object", properties: { account: { type: "string" } }, required: ["account"], additionalProperties: false } },
  ];

  it("renders the tools into the prompt and returns the sampled tokens with their logprobs", async () => {
    const model = (await openModel("embedded")) as LlamaCppModel;
    try {
      const chat: ChatMessage[] = [{ role: "user", content: "What does 'alder' hold? Use the tools." }];
      const withTools = await model.generate(chat, { maxTokens: 24, temperature: 0, seed: 1, tools });
      const promptText = model.detokenize(withTools.promptTokens ?? []);
      expect(promptText).toContain('<tools>\n{"type": "function", "function": {"name": "get_balance"');
      expect(promptText).toContain("<tool_call>");
      expect(promptText.endsWith("<start_of_turn>model\n")).toBe(true);
      expect(withTools.tokens?.length).toBeGreaterThan(0);
      expect(withTools.logprobs).toHaveLength(withTools.tokens?.length ?? -1);
      expect(withTools.logprobs?.every((logprob) => Number.isFinite(logprob) && logprob <= 0)).toBe(true);
      // the result of a call comes back as a tool message: a <tool_response> block in a user turn
      const next = await model.generate([...chat, { role: "assistant", content: '<tool_call>\n{"name": "get_balance", "arguments": {"account": "alder"}}\n</tool_call>' }, { role: "tool", content: "'alder' holds 41 credits." }], { maxTokens: 8, temperature: 0, tools });
      expect(model.detokenize(next.promptTokens ?? [])).toContain("<start_of_turn>user\n<tool_response>\n'alder' holds 41 credits.\n</tool_response><end_of_turn>\n<start_of_turn>model\n");
    } finally {
      await model.close();
    }
  });
});
