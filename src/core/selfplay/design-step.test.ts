import { describe, expect, it } from "vitest";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { parseConfig } from "../../config/index.js";
import type { CorpusDocument, EnvironmentRecord } from "../../spec/index.js";
import { designerPromptOf } from "./design-step.js";

const corpus: CorpusDocument[] = Array.from({ length: 40 }, (_, index) => ({ id: `doc-${index}`, title: `Document ${index}`, text: `Text of document ${index}.` }));

function record(variant: number, round: number | null, designerReward = 0): EnvironmentRecord {
  const scores = { plays: 2, winRateNoHint: 0.5, winRateHint: 1, meanReturnNoHint: 0.5, meanReturnHint: 1, regret: 0.5, designerReward };
  return { id: `env-${variant}`, package: samplePackage(variant), round, scores: round === null ? null : scores };
}

const memory = [record(1, null), record(2, null), record(3, null)];

describe("designerPromptOf (Designer prompt groups)", () => {
  it("gives the designs of one prompt group the same prompt, and the next group another", () => {
    const config = parseConfig({ designer: { samplesPerPrompt: 3 } });
    const hashes = [0, 1, 2, 3, 4, 5, 6].map((index) => designerPromptOf({ config, round: 2, index, corpus, memory }).hash);
    expect(new Set(hashes.slice(0, 3)).size).toBe(1);
    expect(new Set(hashes.slice(3, 6)).size).toBe(1);
    expect(hashes[3]).not.toBe(hashes[0]);
    expect(hashes[6]).not.toBe(hashes[3]);
  });

  it("gives every design its own prompt with one sample per prompt", () => {
    const config = parseConfig({ designer: { samplesPerPrompt: 1 } });
    const hashes = [0, 1, 2, 3].map((index) => designerPromptOf({ config, round: 1, index, corpus, memory }).hash);
    expect(new Set(hashes).size).toBe(4);
  });

  it("defaults to two designs per prompt, so the quick start's two designs form one group", () => {
    const config = parseConfig({});
    expect(config.designer.samplesPerPrompt).toBe(2);
    const [first, second] = [0, 1].map((index) => designerPromptOf({ config, round: 1, index, corpus, memory }));
    expect(second?.hash).toBe(first?.hash);
  });

  it("keeps a group's prompt when an environment is admitted during the round (or the round is resumed)", () => {
    const config = parseConfig({ designer: { samplesPerPrompt: 2, memoryExamples: 1 } });
    const first = designerPromptOf({ config, round: 3, index: 0, corpus, memory });
    // design 0 was admitted with a high designer reward; it would otherwise be the top example
    const grown = [...memory, record(9, 3, 1)];
    const second = designerPromptOf({ config, round: 3, index: 1, corpus, memory: grown });
    expect(second.hash).toBe(first.hash);
    expect(second.exampleNames).not.toContain("sample-9");
    // the next round does show it
    expect(designerPromptOf({ config, round: 4, index: 0, corpus, memory: grown }).exampleNames).toEqual(["sample-9"]);
  });
});
