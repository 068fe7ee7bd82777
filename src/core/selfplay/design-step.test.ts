import { describe, expect, it } from "vitest";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { parseConfig } from "../../config/index.js";
import type { CorpusDocument, EnvironmentRecord } from "../../spec/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { admit, buildGates } from "../admission/index.js";
import { EMPTY_LEARNING_POTENTIAL } from "../rewards/index.js";
import { designerPromptOf, runDesignStep } from "./design-step.js";
import { SCAFFOLD_EXAMPLES, promptExamplePackages } from "./designer-prompt.js";

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

  it("never shows a held-out environment as an example", () => {
    const config = parseConfig({ designer: { memoryExamples: 3 } });
    const shown = designerPromptOf({ config, round: 2, index: 0, corpus, memory }).exampleNames;
    expect(shown).toHaveLength(3);
    const held = memory.find((entry) => entry.package.manifest.name === shown[0])!;
    const without = designerPromptOf({ config, round: 2, index: 0, corpus, memory, heldOut: [held.id] }).exampleNames;
    expect(without).toHaveLength(2);
    expect(without).not.toContain(shown[0]);
  });
});

// Repair turns: control flow with a SCRIPTED FAKE model (ScriptedModel; no model behaviour is tested here),
// real gates in the real sandbox. The two completions are hand-written for this test, not model output.
describe("runDesignStep repair turns (scripted fake model, real gates)", () => {
  const broken = [
    "```python",
    'NAME = "add-two"',
    'TITLE = "Add two numbers"',
    'DESCRIPTION = "Add two numbers."',
    'HINT = "Carry the tens."',
    'SKILLS = ["arithmetic"]',
    "def generate(rng):",
    '    return {"a": rng.randint(100, 999), "b": rng.randint(100, 999)}',
    "def render(instance):",
    "    return f\"What is {instance['a']} plus {instance['c']}? Reply with one integer.\"",
    "def solve(instance):",
    '    return instance["a"] + instance["b"]',
    "```",
  ].join("\n");
  const fixed = broken.replace("instance['c']", "instance['b']");

  async function step(designs: (string | Error)[], repairTurns: number, gates: string[] = ["static", "executable", "oracle"]) {
    const config = parseConfig({ plays: 1, designer: { repairTurns }, admission: { gates } });
    const sandbox = new BwrapSandbox();
    const model = new ScriptedModel(designs, () => "0");
    const repairs: { turn: number; gate: string | undefined; reason: string | undefined }[] = [];
    try {
      const result = await runDesignStep({
        round: 1, index: 0, config, model, sandbox, corpus: corpus.slice(0, 3), memory: [], gates: buildGates(config.admission),
        admission: testAdmissionResources(), policyVersion: 0, learningPotential: EMPTY_LEARNING_POTENTIAL, now: () => new Date("2026-12-01T00:00:00Z"),
        onRepair: ({ turn, verdict }) => repairs.push({ turn, gate: verdict?.gate, reason: verdict?.status === "reject" ? verdict.reason : undefined }),
      });
      return { result, repairs, prompts: model.prompts.filter((messages) => messages[0]?.content.startsWith("You are the Designer")) };
    } finally {
      await sandbox.close();
    }
  }

  it("sends the failing verdict back and admits the repaired design on the second turn", async () => {
    const { result, prompts, repairs } = await step([broken, fixed], 2);
    expect(result.design.environmentId).not.toBeNull();
    // the progress callback heard of the one repair turn, with the failing gate
    expect(repairs).toEqual([{ turn: 0, gate: "executable", reason: expect.any(String) }]);
    expect(result.design.completion).toBe(fixed);
    expect(result.design.repairs).toHaveLength(1);
    expect(result.design.repairs?.[0]?.completion).toBe(broken);
    expect(result.design.repairs?.[0]?.verdicts.at(-1)).toMatchObject({ status: "reject", gate: "executable" });
    const second = prompts[1] ?? [];
    expect(second.at(-2)).toEqual({ role: "assistant", content: broken });
    expect(second.at(-1)?.content).toMatch(/^Your task was rejected by the executable check \(\w+\): .*KeyError/s);
  });

  it("stops after designer.repairTurns attempts with the last verdict", async () => {
    const { result, prompts } = await step([broken], 1);
    expect(prompts).toHaveLength(2);
    expect(result.design.environmentId).toBeNull();
    expect(result.design.repairs).toHaveLength(1);
    expect(result.design.verdicts.at(-1)).toMatchObject({ status: "reject", gate: "executable" });
    const single = await step([broken], 0);
    expect(single.prompts).toHaveLength(1);
    // the final attempt is no repair: the round reports it as the design's outcome
    expect(single.repairs).toEqual([]);
    expect(single.result.design.repairs).toBeUndefined();
  });

  it("keeps earlier attempts when the model fails on a repair turn", async () => {
    const { result } = await step([broken, new Error("server gone")], 2);
    expect(result.design.completion).toBe("");
    expect(result.design.verdicts).toEqual([expect.objectContaining({ status: "reject", reason: "model_error" })]);
    expect(result.design.repairs?.map((attempt) => attempt.completion)).toEqual([broken]);
  });

  // the step's prompt (round 1, prompt group 0, empty memory) shows the built-in example this picks
  const shownExample = () => SCAFFOLD_EXAMPLES[designerPromptOf({ config: parseConfig({}), round: 1, index: 0, corpus: corpus.slice(0, 3), memory: [] }).builtInExample ?? -1] ?? "";

  it("rejects a verbatim copy of the prompt's built-in example as a duplicate (Qwen2.5-Coder-0.5B answered a repair turn with it)", async () => {
    const example = shownExample();
    const name = /NAME = "([^"]+)"/.exec(example)?.[1];
    const { result } = await step([`\`\`\`python\n${example}\`\`\``], 0, ["static", "novelty"]);
    expect(result.design.environmentId).toBeNull();
    expect(result.design.verdicts.at(-1)).toMatchObject({ status: "reject", gate: "novelty", reason: "exact_copy", message: expect.stringContaining(`${name} (`) });
  });

  it("rejects a copy of the prompt's own built-in example as a near-duplicate (the example joins the novelty pool)", async () => {
    const example = shownExample();
    const name = /NAME = "([^"]+)"/.exec(example)?.[1] ?? "";
    const renamed = example.replace(`NAME = "${name}"`, 'NAME = "renamed-copy"').replace('HINT = "', 'HINT = "Think first. ');
    const { result } = await step([`\`\`\`python\n${renamed}\`\`\``], 0, ["static", "novelty"]);
    expect(result.design.environmentId).toBeNull();
    expect(result.design.verdicts.at(-1)).toMatchObject({ status: "reject", gate: "novelty", evidence: { text: { name } } });
  });

  it("rotates the built-in examples over prompt groups and rounds, and every one passes the mechanical gates", async () => {
    const config = parseConfig({ designer: { samplesPerPrompt: 2 } });
    const shown = [0, 1, 2, 3, 4, 5].map((index) => designerPromptOf({ config, round: 1, index, corpus, memory: [] }).builtInExample);
    expect(shown).toEqual([1, 1, 2, 2, 0, 0]);
    expect(designerPromptOf({ config, round: 2, index: 0, corpus, memory: [] }).builtInExample).toBe(2);
    const sandbox = new BwrapSandbox();
    try {
      for (const index of SCAFFOLD_EXAMPLES.keys()) {
        const [pkg] = promptExamplePackages({ builtInExample: index });
        const gateConfig = parseConfig({ admission: { skip: ["self-review", "novelty", "calibration"] } });
        const result = await admit(pkg!, buildGates(gateConfig.admission), { sandbox, settings: gateConfig.admission, pool: [], ...testAdmissionResources() });
        expect({ index, rejected: result.verdicts.filter((verdict) => verdict.status === "reject") }).toEqual({ index, rejected: [] });
      }
    } finally {
      await sandbox.close();
    }
  });
});
