import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCorpus, TOOLS_CORPUS_PATH } from "../../adapters/corpus/index.js";
import { loadPackageFolder, loadPackageFolders, loadSeedPackages } from "../../adapters/package-files/index.js";
import { parseConfig } from "../../config/index.js";
import { packageId, type EnvironmentRecord } from "../../spec/index.js";
import { designerPromptOf } from "./design-step.js";
import { buildDesignerPrompt } from "./designer-prompt.js";
import { parseDesign } from "./parse-design.js";

const TOOL_SEEDS = join(import.meta.dirname, "../../../envs/tool-seeds");

describe("the Designer's tool mode", () => {
  it("reads the shipped tool corpus: a few hundred API-shaped documents, each with its source and licence", () => {
    const documents = readCorpus(TOOLS_CORPUS_PATH);
    expect(documents.length).toBeGreaterThanOrEqual(300);
    expect(new Set(documents.map((document) => document.id)).size).toBe(documents.length);
    expect(documents.every((document) => /\bdef \w+\(/.test(document.text))).toBe(true);
  });

  it("asks for tools in the JSON block and shows tool environments whole, with their tools, on API-shaped documents", () => {
    const documents = readCorpus(TOOLS_CORPUS_PATH).slice(0, 2);
    const prompt = buildDesignerPrompt(documents, [loadPackageFolder(join(TOOL_SEEDS, "bank-ledger"))], "tool");
    const [system, user] = prompt.messages;
    expect(system?.content).toMatch(/step receives either a tool call, a dict \{"name": "<tool>", "arguments"/);
    expect(user?.content).toContain('"tools":[{"name":"list_accounts"');
    expect(user?.content).toContain("class BankLedger");
    expect(user?.content).toContain(documents[0]?.text.slice(0, 60));
    expect(user?.content).toMatch(/"tools": \[\{"name": "get_item"/);
    expect(prompt.format).toBe("tool");
    expect(prompt.corpusDocumentIds).toEqual(documents.map((document) => document.id));
  });

  it("draws its examples from the tool environments in memory only", () => {
    const memory: EnvironmentRecord[] = [...loadSeedPackages(), ...loadPackageFolders(TOOL_SEEDS)].map((pkg) => ({ id: packageId(pkg), package: pkg, round: null, scores: null }));
    const config = parseConfig({ designer: { format: "tool", memoryExamples: 3 } });
    for (let round = 1; round <= 4; round += 1) {
      const prompt = designerPromptOf({ config, round, index: 0, corpus: readCorpus(TOOLS_CORPUS_PATH), memory });
      expect(prompt.exampleNames).toHaveLength(3);
      const tools = new Set(memory.filter((record) => record.package.manifest.tools !== undefined).map((record) => record.package.manifest.name));
      expect(prompt.exampleNames.every((name) => tools.has(name))).toBe(true);
    }
  });

  it("parses a tool design's JSON tools into the manifest, and a design whose tool schema is not an object is an invalid manifest", () => {
    const seed = loadPackageFolder(join(TOOL_SEEDS, "shop-orders"));
    const json = JSON.stringify({ title: "Shop", description: "Orders behind tools.", maxTurns: 13, hint: "Check stock first.", tools: seed.manifest.tools });
    const completion = ["```json", json, "```", "```python", seed.envSource, "```", "```python", seed.oracleSource, "```"].join("\n");
    const provenance = { origin: "designer" as const, parentId: null, generation: 0, designerModel: "test", promptHash: null, corpusDocumentIds: [], createdAt: "2026-12-07T00:00:00.000Z" };
    const parsed = parseDesign(completion, provenance);
    expect(parsed.ok && parsed.package.manifest.tools?.map((tool) => tool.name)).toEqual(seed.manifest.tools?.map((tool) => tool.name));
    const broken = parseDesign(completion.replace(json, JSON.stringify({ ...JSON.parse(json), tools: [{ name: "x", description: "d", parameters: { type: "string" } }] })), provenance);
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.verdict.status === "reject" && broken.verdict.reason).toBe("invalid_manifest");
  });
});
