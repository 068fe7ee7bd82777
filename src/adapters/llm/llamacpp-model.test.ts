import { describe, expect, it } from "vitest";
import { ConfigError, ModelUnavailableError } from "../../spec/index.js";
import { embeddedModelPath } from "./embedded-model.js";
import { languageModelContract } from "./language-model.contract.js";
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
