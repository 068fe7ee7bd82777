import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { parseConfig } from "../../config/index.js";
import { packageId, type Provenance } from "../../spec/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { filesReply, PARENT, PASS, rejectReply, SUM_ENV, SUM_ORACLE } from "../../testing/evolution-fixtures.js";
import { ScriptedRoleModel, type ScriptedReply } from "../../testing/scripted-role-model.js";
import { modifierPrompt, runModificationLoop } from "./modification-loop.js";

// Control flow of the modification loop with a SCRIPTED FAKE model (ScriptedRoleModel);
// the sandbox and the oracle / negative-controls validations (the admission gates) are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000 } });
afterAll(() => sandbox.close());

const provenance: Provenance = {
  origin: "evolution",
  parentId: packageId(PARENT),
  generation: 1,
  designerModel: "scripted-fake",
  promptHash: null,
  corpusDocumentIds: [],
  createdAt: "2026-11-29T12:00:00.000Z",
};
const plan = { summary: "ask for a sum", steps: [{ scenario: "arithmetic quiz", skill: "addition" }] };
const role = { maxTokens: 64, temperature: 0 };
const WRONG_ORACLE = "def act(env, observation):\n    return '0'\n";
const FREE_ENV = SUM_ENV.replace("1.0 if right else 0.0", "1.0");

function run(modifier: ScriptedReply[], reviewer: ScriptedReply[], maxRounds = 3) {
  const model = new ScriptedRoleModel({ modifier, reviewer });
  const result = runModificationLoop(
    { parent: PARENT, plan, instruction: "Direction SKILL: replace the skills.", provenance },
    { admission: { ...testAdmissionResources(), sandbox, settings: { ...parseConfig({}).admission, seeds: 2 } }, model, rubrics: ["oracle.py solves the child."], reviewer: role },
    { maxRounds, modifier: role },
  );
  return { model, result };
}

describe("modifierPrompt", () => {
  const input = { parent: PARENT, plan, instruction: "Direction SKILL: replace the skills.", provenance };
  it("asks for search/replace blocks only by default, with one worked block", () => {
    const prompt = modifierPrompt(input, null)[1]?.content ?? "";
    expect(prompt).toContain("Reply with search/replace blocks only");
    expect(prompt).toMatch(/<<<<<<< SEARCH env\.py\n {8}self\.size = 5\n=======\n {8}self\.size = 9\n {8}self\.rounds = 3\n>>>>>>> REPLACE/);
    expect(prompt).not.toMatch(/unified diff/);
  });

  it("offers blocks, unified diffs and full files with form 'any'", () => {
    const prompt = modifierPrompt(input, "[oracle] missed", 6000, "any")[1]?.content ?? "";
    expect(prompt).toMatch(/unified diffs in ```diff blocks.*full new files/);
    expect(prompt).toContain("Your previous child failed validation: [oracle] missed");
  });
});

describe("runModificationLoop (scripted fake model, real sandbox)", () => {
  it("accepts a child that passes the oracle, negative-controls, behaviour-change and rubric validations", async () => {
    const { model, result } = run([filesReply(SUM_ENV, SUM_ORACLE)], [PASS]);
    const outcome = await result;
    expect(outcome.child?.manifest.name).toBe("answer-42-g1");
    expect(outcome.validations.map((verdict) => [verdict.gate, verdict.status])).toEqual([["oracle", "pass"], ["negative-controls", "pass"], ["behaviour-change", "pass"], ["rubric", "pass"]]);
    expect(outcome.rounds).toHaveLength(1);
    expect(outcome.rounds[0]?.form).toBe("files");
    expect(model.promptsOf("reviewer")[0]?.[1]?.content).toMatch(/return str\(env\.a \+ env\.b\)/);
  });

  it("feeds validation failures back to the Modifier until a child passes, and asks the reviewer only about mechanically sound children", async () => {
    const { model, result } = run(
      [filesReply(SUM_ENV, WRONG_ORACLE), filesReply(FREE_ENV, SUM_ORACLE), filesReply(SUM_ENV, SUM_ORACLE), filesReply(SUM_ENV, SUM_ORACLE)],
      [rejectReply("the hint gives the answer away"), PASS],
      4,
    );
    const outcome = await result;
    expect(outcome.child).not.toBeNull();
    const reasons = outcome.rounds.map((round) => round.verdicts.filter((verdict) => verdict.status === "reject").map((verdict) => (verdict.status === "reject" ? verdict.reason : "")));
    expect(reasons).toEqual([["oracle_failed"], ["empty_solution_passes"], ["rubric_failed"], []]);
    expect(outcome.rounds.map((round) => round.verdicts.length)).toEqual([3, 3, 4, 4]);
    expect(model.promptsOf("reviewer")).toHaveLength(2);
    const prompts = model.promptsOf("modifier").map((messages) => messages[1]?.content ?? "");
    expect(prompts[1]).toMatch(/\[oracle\] the oracle missed the pass threshold on 2 of 2 seeds/);
    expect(prompts[2]).toMatch(/\[negative-controls\] the empty solution control wins/);
    expect(prompts[3]).toMatch(/\[rubric\] the hint gives the answer away/);
  }, 60_000);

  it("rejects a child that behaves exactly like its parent (recorded 1.5B pattern: unused attributes added)", async () => {
    const unused = ["<<<<<<< SEARCH env.py", "        self.done = False", "=======", "        self.done = False", "        self.rounds = 3", "        self.size = 10", ">>>>>>> REPLACE"].join("\n");
    const { model, result } = run([unused], [PASS], 1);
    const outcome = await result;
    expect(outcome.child).toBeNull();
    expect(outcome.rounds[0]?.form).toBe("replace");
    expect(outcome.rounds[0]?.verdicts.map((verdict) => (verdict.status === "reject" ? verdict.reason : "pass"))).toEqual(["pass", "pass", "child_behaviour_unchanged"]);
    expect(model.promptsOf("reviewer")).toHaveLength(0);
  }, 60_000);

  it("stops after the maximum number of rounds without a child", async () => {
    const { model, result } = run(["I cannot write code.", filesReply(SUM_ENV, WRONG_ORACLE)], [PASS], 2);
    const outcome = await result;
    expect(outcome.child).toBeNull();
    expect(outcome.validations).toEqual([]);
    expect(outcome.rounds.map((round) => round.verdicts.map((verdict) => (verdict.status === "reject" ? verdict.reason : "pass")))).toEqual([
      ["no_change_found"],
      ["oracle_failed", "pass", "pass"],
    ]);
    expect(model.promptsOf("modifier")).toHaveLength(2);
  }, 60_000);
});
