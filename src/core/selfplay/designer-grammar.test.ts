import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath, LlamaCppModel } from "../../adapters/llm/index.js";
import { ModelRequestError, type Provenance } from "../../spec/index.js";
import { SCAFFOLD_GRAMMAR } from "../scaffold/index.js";
import { buildDesignerPrompt } from "./designer-prompt.js";
import { parseDesign } from "./parse-design.js";

// The scaffold grammar on the real embedded model (Gemma 3 270M, which without it writes no
// parseable environment): llama.cpp compiles the grammar and every completion it allows parses.

const provenance: Provenance = { origin: "designer", parentId: null, generation: 0, designerModel: "embedded", promptHash: null, corpusDocumentIds: [], createdAt: "2026-12-01T00:00:00.000Z" };

describe.skipIf(!existsSync(embeddedModelPath()))("the scaffold grammar on the embedded model", () => {
  let model: LlamaCppModel;
  beforeAll(async () => {
    model = await LlamaCppModel.load({ modelPath: embeddedModelPath(), contextSize: 2048, threads: 1 });
  }, 120_000);
  afterAll(() => model?.close());

  it("makes Gemma 3 270M's design reply a scaffold the parser accepts", async () => {
    const prompt = buildDesignerPrompt([], [], "scaffold");
    const generation = await model.generate(prompt.messages, { maxTokens: 400, temperature: 0.8, seed: 3, grammar: SCAFFOLD_GRAMMAR });
    expect(generation.text).toMatch(/^```python\nNAME = "[a-z][a-z0-9-]+"\n/);
    expect(generation.finishReason).toBe("stop");
    const parsed = parseDesign(generation.text, provenance);
    expect(parsed.ok ? parsed.package.manifest.name : parsed.verdict).toMatch(/^[a-z][a-z0-9-]+$/);
  }, 300_000);

  it("rejects a grammar llama.cpp cannot compile with a ModelRequestError", async () => {
    const prompt = buildDesignerPrompt([], [], "scaffold");
    await expect(model.generate(prompt.messages, { maxTokens: 4, temperature: 0, grammar: "root ::= (" })).rejects.toBeInstanceOf(ModelRequestError);
  }, 60_000);
});
