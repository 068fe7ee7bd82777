import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath, LlamaCppModel } from "../../adapters/llm/index.js";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { packageId } from "../../spec/index.js";
import { parseSearchReplace } from "./search-replace.js";
import { buildChild } from "./child-package.js";
import { modifierPrompt } from "./modification-loop.js";
import { MODIFIER_GRAMMAR, planGrammar, reviewGrammar } from "./grammars.js";
import { parseRubricReview, reviewPrompt } from "./reviewer.js";
import { checkPlan, parsePlan, proposerPrompt } from "./planning-loop.js";

// The evolution grammars on the real embedded model (Gemma 3 270M, the smallest model here): llama.cpp
// compiles them; the Modifier reply they allow is a run of search/replace blocks the parser reads,
// each SEARCH at most 12 lines, with nothing before the first block; the Proposer reply is a plan.

const parent = loadPackageFolder("envs/seeds/knapsack");
const input = {
  parent,
  plan: { summary: "more items and a tighter capacity", steps: [{ scenario: "pack a bag", skill: "knapsack optimisation" }] },
  instruction: "Direction LENGTH, effort high: make the task longer.",
  provenance: { origin: "evolution" as const, parentId: packageId(parent), generation: 1, designerModel: "embedded", promptHash: null, corpusDocumentIds: [], createdAt: "2026-12-02T00:00:00.000Z" },
};

describe.skipIf(!existsSync(embeddedModelPath()))("the evolution grammars on the embedded model", () => {
  let model: LlamaCppModel;
  beforeAll(async () => {
    model = await LlamaCppModel.load({ modelPath: embeddedModelPath(), contextSize: 4096, threads: 1 });
  }, 120_000);
  afterAll(() => model?.close());

  it("makes Gemma 3 270M's Modifier reply search/replace blocks the parser reads", async () => {
    const generation = await model.generate(modifierPrompt(input, null), { maxTokens: 256, temperature: 0.7, seed: 1, grammar: MODIFIER_GRAMMAR });
    expect(generation.text).toMatch(/^<<<<<<< SEARCH (env|oracle)\.py\n/);
    const { edits } = parseSearchReplace(generation.text);
    // a reply cut at the token bound may leave its last block open; every closed block parses
    expect(edits.length).toBeGreaterThanOrEqual(generation.finishReason === "stop" ? 1 : 0);
    for (const edit of edits) expect(edit.search.split("\n").length - 1).toBeLessThanOrEqual(12);
    const built = buildChild(parent, generation.text, input.provenance);
    // the 270M's SEARCH lines need not be in the file: the verdict names the form's failure, never a crash
    expect(built.ok ? built.form : built.verdict.reason).toMatch(/^(replace|patch_failed|no_change_found|child_unchanged|invalid_manifest)$/);
  }, 300_000);

  it.each([
    ["length", { start: 1, end: 2 }],
    ["scenario", { start: 0, end: 2 }],
    ["skill", { start: 2, end: 3 }],
  ] as const)("makes Gemma 3 270M's %s plan one that parsePlan reads and the plan checks accept", async (direction, span) => {
    const sequence = [
      { scenario: "read the \"items\" list", skill: "parse weights" },
      { scenario: "pack a bag", skill: "knapsack optimisation" },
      { scenario: "report the value", skill: "arithmetic" },
    ];
    const planning = { parent, sequence, direction, effort: "high" as const, span, rubrics: [] };
    const generation = await model.generate(proposerPrompt(planning, null), { maxTokens: 400, temperature: 0.7, seed: 2, grammar: planGrammar(planning) });
    expect(generation.text).toMatch(/^\{"summary": "/);
    expect(generation.finishReason).toBe("stop");
    const plan = parsePlan(generation.text);
    expect(plan?.steps.length).toBeGreaterThanOrEqual(3);
    // the structure is the grammar's; only an unchanged label (plan_unchanged) is left to the model
    const problem = plan === null ? null : checkPlan(plan, planning);
    expect(problem === null || (problem.status === "reject" && problem.reason === "plan_unchanged")).toBe(true);
  }, 300_000);

  it("makes Gemma 3 270M's rubric review one check per rubric, from which a verdict is computed", async () => {
    const rubrics = ["The plan adds steps.", "Every step is concrete.", "The child stays solvable."];
    const generation = await model.generate(reviewPrompt("plan", rubrics, "Plan: pack two bags.\nPlanned sequence:\n1. scenario: pack a bag | skill: knapsack"), { maxTokens: 300, temperature: 0.7, seed: 4, grammar: reviewGrammar(3) });
    expect(generation.finishReason).toBe("stop");
    expect(generation.text).toMatch(/^\{"checks": \[\{"rubric": 1, "why": "[^"]+", "holds": (true|false)\}, \{"rubric": 2, .*\{"rubric": 3, .*\]\}$/s);
    expect(parseRubricReview(generation.text)).not.toBeNull();
  }, 300_000);
});
