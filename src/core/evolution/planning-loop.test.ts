import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath } from "../../adapters/llm/embedded-model.js";
import { LlamaCppModel } from "../../adapters/llm/llamacpp-model.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { ModelUnavailableError } from "../../spec/index.js";
import { PARENT, PASS, planReply, rejectReply } from "../../testing/evolution-fixtures.js";
import { ScriptedRoleModel } from "../../testing/scripted-role-model.js";
import type { ChatMessage, GenerateOptions, Generation } from "../../spec/index.js";
import { manifestSequence, stepJson } from "./sequence.js";
import { checkPlan, parsePlan, planTokenBound, runPlanningLoop, type PlanningInput } from "./planning-loop.js";

// Control flow of the planning loop with a SCRIPTED FAKE model (ScriptedRoleModel).

const input: PlanningInput = {
  parent: PARENT,
  sequence: [{ scenario: "quiz", skill: "recall" }],
  direction: "skill",
  effort: "low",
  span: { start: 0, end: 1 },
  rubrics: ["The plan respects the effort."],
};
const role = { maxTokens: 64, temperature: 0 };
const settings = (maxRounds: number) => ({ maxRounds, proposer: role, reviewer: role });
const addition = [{ scenario: "quiz", skill: "addition" }];

describe("runPlanningLoop (scripted fake model)", () => {
  it("returns the first plan the reviewer passes", async () => {
    const model = new ScriptedRoleModel({ proposer: [planReply(addition)], reviewer: [PASS] });
    const result = await runPlanningLoop(input, model, settings(3));
    expect(result.plan).toEqual({ summary: "replace recall by addition", steps: addition });
    expect(result.rounds).toHaveLength(1);
    expect(result.rounds[0]?.review).toEqual({ status: "pass", gate: "plan-review" });
    // the reviewer saw the rubric and the planned sequence
    expect(model.promptsOf("reviewer")[0]?.[1]?.content).toMatch(/1\. The plan respects the effort\.[\s\S]*scenario: quiz \| skill: addition/);
  });

  it("sends the reviewer's feedback back to the Proposer until a plan passes", async () => {
    const model = new ScriptedRoleModel({
      proposer: [planReply([{ scenario: "quiz", skill: "spelling" }]), planReply(addition)],
      reviewer: [rejectReply("spelling is not rarer than recall"), PASS],
    });
    const result = await runPlanningLoop(input, model, settings(3));
    expect(result.plan?.steps).toEqual(addition);
    expect(result.rounds.map((round) => round.review.status)).toEqual(["reject", "pass"]);
    expect(result.rounds[0]?.review).toMatchObject({ reason: "rubric_failed", message: "spelling is not rarer than recall" });
    expect(model.promptsOf("proposer")[1]?.[1]?.content).toMatch(/rejected your previous plan: spelling is not rarer than recall/);
    expect(model.promptsOf("proposer")[0]?.[1]?.content).not.toMatch(/rejected/);
  });

  it("gives up after the maximum number of rounds", async () => {
    const model = new ScriptedRoleModel({ proposer: [planReply(addition)], reviewer: [rejectReply("no")] });
    const result = await runPlanningLoop(input, model, settings(2));
    expect(result.plan).toBeNull();
    expect(result.rounds).toHaveLength(2);
    expect(model.promptsOf("proposer")).toHaveLength(2);
    expect(model.promptsOf("reviewer")).toHaveLength(2);
  });

  it("spends a round without review on an unparseable or unchanged plan, with feedback", async () => {
    const model = new ScriptedRoleModel({ proposer: ["I think we should make it harder.", planReply(input.sequence), planReply(addition)], reviewer: [PASS] });
    const result = await runPlanningLoop(input, model, settings(3));
    expect(result.rounds.map((round) => (round.review.status === "reject" ? round.review.reason : "pass"))).toEqual(["plan_unparseable", "plan_unchanged", "pass"]);
    expect(model.promptsOf("reviewer")).toHaveLength(1);
    expect(model.promptsOf("proposer")[1]?.[1]?.content).toMatch(/no JSON object with "summary"/);
  });

  it("requires a LENGTH plan to add steps", async () => {
    const model = new ScriptedRoleModel({ proposer: [planReply(addition)], reviewer: [PASS] });
    const result = await runPlanningLoop({ ...input, direction: "length" }, model, settings(1));
    expect(result.plan).toBeNull();
    expect(result.rounds[0]?.review).toMatchObject({ reason: "plan_not_longer" });
  });

  it("checks direction and effort by program before review, with the exact reason sent back", () => {
    const sequence = [
      { scenario: "a shopping list", skill: "add the prices" },
      { scenario: "a receipt", skill: "compare totals" },
      { scenario: "a budget", skill: "subtract" },
    ];
    const plan = (steps: { scenario: string; skill: string }[]) => ({ summary: "harder", steps });
    const at = (direction: PlanningInput["direction"], start: number, end: number) => ({ ...input, sequence, direction, span: { start, end } });
    const reason = (verdict: ReturnType<typeof checkPlan>) => (verdict?.status === "reject" ? verdict.reason : "ok");
    const [first, second, third] = sequence as [(typeof sequence)[0], (typeof sequence)[0], (typeof sequence)[0]];
    // SKILL, span step 2: only step 2's skill may change
    expect(reason(checkPlan(plan([first, { ...second, skill: "find the median" }, third]), at("skill", 1, 2)))).toBe("ok");
    expect(reason(checkPlan(plan([first, { ...second, skill: "find the median" }]), at("skill", 1, 2)))).toBe("plan_wrong_length");
    expect(checkPlan(plan([first, { scenario: "a ledger", skill: "find the median" }, third]), at("skill", 1, 2))).toMatchObject({ reason: "plan_changed_kept", message: `a SKILL plan keeps every scenario; step 2's scenario must stay "a receipt"` });
    expect(checkPlan(plan([{ ...first, skill: "multiply" }, { ...second, skill: "find the median" }, third]), at("skill", 1, 2))).toMatchObject({ reason: "plan_outside_span", message: "change only step 2; step 1 is outside it and must stay as it is" });
    // SCENARIO keeps skills; labels compare normalised
    expect(reason(checkPlan(plan([{ scenario: "a ship's manifest", skill: "Add the prices." }, second, third]), at("scenario", 0, 2)))).toBe("ok");
    expect(reason(checkPlan(plan([{ scenario: "a ship's manifest", skill: "add weights" }, second, third]), at("scenario", 0, 2)))).toBe("plan_changed_kept");
    // LENGTH, span steps 1 to 2: step 3 must close the plan; new steps go between
    const extra = { scenario: "a discount", skill: "compute a percentage" };
    expect(reason(checkPlan(plan([first, second, extra, third]), at("length", 0, 2)))).toBe("ok");
    expect(reason(checkPlan(plan([first, { ...second, skill: "divide" }, extra, third]), at("length", 0, 2)))).toBe("ok");
    expect(reason(checkPlan(plan([first, second, third, extra]), at("length", 0, 2)))).toBe("plan_outside_span");
    expect(reason(checkPlan(plan([first, second, third, extra]), at("length", 1, 3)))).toBe("ok");
    // effort max spans everything
    expect(reason(checkPlan(plan([{ ...first, skill: "multiply" }, { ...second, skill: "divide" }, third]), at("skill", 0, 3)))).toBe("ok");
  });

  it("records model errors and unreadable reviews as rejected rounds, never throws", async () => {
    const model = new ScriptedRoleModel({ proposer: [new ModelUnavailableError("server down"), planReply(addition)], reviewer: ["hmm, maybe"] });
    const result = await runPlanningLoop(input, model, settings(2));
    expect(result.plan).toBeNull();
    expect(result.rounds.map((round) => (round.review.status === "reject" ? round.review.reason : "pass"))).toEqual(["model_error", "review_unparseable"]);
    expect(result.rounds[0]?.review).toMatchObject({ message: "model_unavailable: server down" });
  });
});

describe("planTokenBound", () => {
  it("adds the parent's steps, which every plan repeats, to the allowance at one token per 3 characters of their JSON", () => {
    // {"scenario":"quiz","skill":"recall"} is 36 characters, + 2 for the separator: 38 → 13 tokens
    expect(planTokenBound(64, [{ scenario: "quiz", skill: "recall" }])).toBe(64 + 13);
    expect(planTokenBound(64, [])).toBe(64);
    const long = Array.from({ length: 15 }, (_, index) => ({ scenario: `register machine program number ${index}`, skill: "tracing register values" }));
    expect(planTokenBound(384, long)).toBeGreaterThan(384 + 15 * 20);
  });

  it("is the bound the Proposer is given (scripted fake model records the options)", async () => {
    const scripted = new ScriptedRoleModel({ proposer: [planReply(addition)], reviewer: [PASS] });
    const bounds: number[] = [];
    const model = {
      id: scripted.id,
      generate: (messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> => {
        bounds.push(options.maxTokens ?? -1);
        return scripted.generate(messages, options);
      },
      close: () => scripted.close(),
    };
    await runPlanningLoop(input, model, settings(1));
    expect(bounds).toEqual([planTokenBound(64, input.sequence), 64]);
  });
});

describe("parsePlan", () => {
  it("reads a bare JSON object and skips malformed steps", () => {
    expect(parsePlan('{"summary": "s", "steps": [{"scenario": "a", "skill": "b"}, {"scenario": 3}, "x"]}')).toEqual({ summary: "s", steps: [{ scenario: "a", skill: "b" }] });
  });
  it("keeps the summary and finished steps of a reply cut off by the token limit", () => {
    expect(parsePlan('```json\n{"summary": "add a \\"lock\\" step", "steps": [{"scenario": "a", "skill": "b"}, {"scenario": "c", "sk')).toEqual({
      summary: 'add a "lock" step',
      steps: [{ scenario: "a", skill: "b" }],
    });
  });

  it("returns null without a summary or without usable steps", () => {
    expect(parsePlan('{"steps": [{"scenario": "a", "skill": "b"}]}')).toBeNull();
    expect(parsePlan('{"summary": "s", "steps": []}')).toBeNull();
    expect(parsePlan("")).toBeNull();
  });
});

describe.skipIf(!existsSync(embeddedModelPath()))("planTokenBound against a real tokenizer (Gemma 3 270M)", () => {
  let tokenizer: LlamaCppModel;
  beforeAll(async () => {
    tokenizer = await LlamaCppModel.load({ modelPath: embeddedModelPath(), contextSize: 512, threads: 1 });
  });
  afterAll(() => tokenizer.close());

  it("covers the tokens of the repeated steps for every seed's sequence and a 15-step one", () => {
    const sequences = loadSeedPackages().map((pkg) => manifestSequence(pkg).steps);
    sequences.push(Array.from({ length: 15 }, (_, index) => ({ scenario: `the machine runs program ${index + 1} with registers r0 to r3`, skill: "tracing register values through jumps" })));
    for (const steps of sequences) {
      const repeated = steps.map(stepJson).join(", ");
      expect(tokenizer.tokenize(repeated).length).toBeLessThanOrEqual(planTokenBound(0, steps));
    }
  });
});
