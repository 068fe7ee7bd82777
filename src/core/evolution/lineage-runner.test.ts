import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteStore } from "../../adapters/store/index.js";
import { parseConfig } from "../../config/index.js";
import { packageId, reject, type EnvPackage, type Store } from "../../spec/index.js";
import { filesReply, PARENT, PASS, rejectReply, spanPlanReply, SUM_ENV, SUM_ORACLE } from "../../testing/evolution-fixtures.js";
import { ScriptedRoleModel, type ScriptedReply } from "../../testing/scripted-role-model.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { lineageIdFor, runEvolution } from "./lineage-runner.js";
import { lineagesDocument } from "./lineages-document.js";
import { evolutionGates, evolutionSettingsFromConfig } from "./settings.js";

// Control flow of the lineage runner with a SCRIPTED FAKE model (ScriptedRoleModel);
// the sandbox, the store and the admission gates are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000 } });
afterAll(() => sandbox.close());
const fixedNow = () => new Date("2026-11-29T12:00:00.000Z");
const rubrics = { plan: ["The plan respects the effort."], child: ["oracle.py solves the child."] };
const OTHER: EnvPackage = { ...PARENT, manifest: { ...PARENT.manifest, name: "answer-42-again" }, envSource: `${PARENT.envSource}\n# variant\n` };

function settings(generations: number, extra: Record<string, unknown> = {}) {
  return evolutionSettingsFromConfig(
    parseConfig({ evolution: { generations, direction: "mixed", effort: "low", planningRounds: 2, modificationRounds: 2, attemptsPerGeneration: 2, validationSeeds: 2, ...extra }, admission: { seeds: 2, skip: ["self-review"] } }),
  );
}

/** Scripted roles that evolve every parent into a new, working sum environment with a longer plan. */
function workingScript(): Record<string, ScriptedReply[]> {
  let plans = 0;
  let children = 0;
  return {
    analyst: ['[{"scenario": "quiz", "skill": "recall"}]'],
    proposer: [(messages) => spanPlanReply(messages, String(plans++))],
    reviewer: [PASS],
    // each child draws its numbers from a range ten times its parent's, so what the agent sees changes (behaviour-change validation)
    modifier: [() => filesReply(SUM_ENV.replace(/99/g, String(100 * 10 ** children++)), SUM_ORACLE)],
  };
}

// The scripted children differ only in one number, so they are near-copies of each other across
// lineages by construction: novelty is left out here (and self-review, which needs review replies);
// every other mechanical gate runs. Admission rejections are covered by the "refuse" case below.
const SCRIPTED_CHILD_GATES = evolutionGates(parseConfig({ admission: { skip: ["self-review", "novelty"] } }).admission);

function evolve(store: Store, model: ScriptedRoleModel, generations: number, seeds: readonly EnvPackage[] = [PARENT], gates = SCRIPTED_CHILD_GATES, extra: Record<string, unknown> = {}) {
  return runEvolution(seeds, { model, sandbox, store, corpus: [], gates, admission: testAdmissionResources(), rubrics, now: fixedNow }, settings(generations, extra));
}

describe("runEvolution (scripted fake model, real sandbox and gates)", () => {
  it("evolves every seed for G generations, in parallel, storing each child with its parent, plan, patch, validations and difficulty", async () => {
    const store = new SqliteStore(":memory:");
    const outcomes = await evolve(store, new ScriptedRoleModel(workingScript()), 2, [PARENT, OTHER]);
    expect(outcomes).toEqual([
      { lineageId: lineageIdFor(PARENT), status: "done", generations: 2 },
      { lineageId: lineageIdFor(OTHER), status: "done", generations: 2 },
    ]);
    const [lineage] = store.listLineages();
    expect(lineage).toMatchObject({ seedId: packageId(PARENT), seedName: "answer-42", sequence: { source: "model", steps: [{ scenario: "quiz", skill: "recall" }] } });
    const generations = store.listGenerations(lineageIdFor(PARENT));
    expect(generations.map((generation) => generation.generation)).toEqual([1, 2]);
    expect(generations[0]?.parentId).toBe(packageId(PARENT));
    expect(generations[1]?.parentId).toBe(generations[0]?.environmentId);
    expect(generations[1]?.direction).not.toBe(generations[0]?.direction);
    for (const generation of generations) {
      expect(generation.effort).toBe("low");
      expect(generation.validations.map((verdict) => [verdict.gate, verdict.status])).toEqual([["oracle", "pass"], ["negative-controls", "pass"], ["behaviour-change", "pass"], ["rubric", "pass"]]);
      expect(generation.admission.length).toBeGreaterThan(0);
      expect(generation.admission.every((verdict) => verdict.status === "pass")).toBe(true);
      expect(generation.patch).toMatch(/\+\+\+ b\/env\.py/);
      expect(generation.sequence.source).toBe("plan");
      expect(generation.difficulty.length).toBe(generation.plan.steps.length);
    }
    // a longer plan of rarer skills is harder than its parent
    expect(generations[1]!.difficulty.total).toBeGreaterThan(generations[0]!.difficulty.total);
    expect(generations[0]!.difficulty.total).toBeGreaterThan(lineage!.difficulty.total);
    const environments = store.listEnvironments();
    const child = environments.find((record) => record.id === generations[1]?.environmentId);
    expect(child?.package.manifest.provenance).toMatchObject({ origin: "evolution", generation: 2, parentId: generations[0]?.environmentId, designerModel: "scripted-fake" });
    expect(store.listEvolutionAttempts(lineageIdFor(PARENT)).map((attempt) => attempt.outcome)).toEqual(["validated", "validated"]);
    const document = lineagesDocument(store);
    expect(document).toHaveLength(2);
    expect(Object.keys(document[0]!.generations[0]!).sort()).toEqual(["difficulty", "direction", "effort", "id", "parent", "validations"]);
    expect(document[0]).toMatchObject({ seed: packageId(PARENT), generations: [{ parent: packageId(PARENT) }, { parent: generations[0]?.environmentId }] });
  }, 120_000);

  it("resumes a lineage without redoing or losing stored generations", async () => {
    const store = new SqliteStore(":memory:");
    const script = workingScript();
    const first = new ScriptedRoleModel(script);
    await evolve(store, first, 1);
    const [generation] = store.listGenerations(lineageIdFor(PARENT));
    const second = new ScriptedRoleModel(script);
    const outcomes = await evolve(store, second, 2);
    expect(outcomes[0]).toMatchObject({ status: "done", generations: 2 });
    expect(store.listGenerations(lineageIdFor(PARENT))[0]).toEqual(generation);
    expect(second.promptsOf("analyst")).toHaveLength(0);
    expect(second.promptsOf("modifier")).toHaveLength(1);
    // a third call with the same G does nothing
    const third = new ScriptedRoleModel(script);
    await evolve(store, third, 2);
    expect(third.prompts.size).toBe(0);
  }, 120_000);

  it("keeps each extracted sequence, so an interrupted start does not ask the model again", async () => {
    const store = new SqliteStore(":memory:");
    let calls = 0;
    const crashing: Store = Object.assign(Object.create(store) as Store, {
      addLineage() {
        throw new Error("killed");
      },
    });
    const script = { ...workingScript(), analyst: [() => `[{"scenario": "quiz", "skill": "recall ${calls++}"}]`] };
    await expect(evolve(crashing, new ScriptedRoleModel(script), 1, [PARENT, OTHER])).rejects.toThrow("killed");
    expect(calls).toBe(2);
    const resumed = new ScriptedRoleModel(script);
    await evolve(store, resumed, 1, [PARENT, OTHER]);
    expect(resumed.promptsOf("analyst")).toHaveLength(0);
    expect(store.listLineages().map((lineage) => lineage.sequence.steps[0]?.skill).sort()).toEqual(["recall 0", "recall 1"]);
  }, 120_000);

  it("stops a lineage when its generation fails every attempt, recording each failure", async () => {
    const store = new SqliteStore(":memory:");
    const model = new ScriptedRoleModel({ ...workingScript(), reviewer: [rejectReply("too easy")] });
    const outcomes = await evolve(store, model, 3);
    expect(outcomes[0]).toEqual({ lineageId: lineageIdFor(PARENT), status: "stalled", generations: 0 });
    const attempts = store.listEvolutionAttempts(lineageIdFor(PARENT));
    expect(attempts.map((attempt) => [attempt.generation, attempt.attempt, attempt.outcome, attempt.planning.length])).toEqual([
      [1, 0, "plan_rejected", 2],
      [1, 1, "plan_rejected", 2],
    ]);
  }, 60_000);

  it("records validation failures and admission rejections as failed attempts", async () => {
    const store = new SqliteStore(":memory:");
    const broken = new ScriptedRoleModel({ ...workingScript(), modifier: [filesReply(SUM_ENV, "def act(env, observation):\n    return '0'\n")] });
    await evolve(store, broken, 1);
    const failed = store.listEvolutionAttempts(lineageIdFor(PARENT));
    expect(failed.map((attempt) => [attempt.outcome, attempt.modification.length])).toEqual([["validation_failed", 2], ["validation_failed", 2]]);

    const other = new SqliteStore(":memory:");
    const refuse = { name: "novelty" as const, usesModel: false, check: async () => reject("novelty", "text_near_duplicate", "no") };
    await evolve(other, new ScriptedRoleModel(workingScript()), 1, [PARENT], [refuse]);
    const attempts = other.listEvolutionAttempts(lineageIdFor(PARENT));
    expect(attempts.map((attempt) => [attempt.outcome, attempt.admission.map((verdict) => verdict.gate)])).toEqual([["admission_rejected", ["novelty"]], ["admission_rejected", ["novelty"]]]);
    expect(other.listGenerations(lineageIdFor(PARENT))).toEqual([]);
  }, 120_000);

  it("keeps a validated generation when the run dies right after storing it", async () => {
    const store = new SqliteStore(":memory:");
    let failOnce = true;
    const crashing: Store = Object.assign(Object.create(store) as Store, {
      saveEvolutionAttempt(attempt: Parameters<Store["saveEvolutionAttempt"]>[0]) {
        if (attempt.outcome === "validated" && failOnce) {
          failOnce = false;
          throw new Error("killed");
        }
        store.saveEvolutionAttempt(attempt);
      },
    });
    const script = workingScript();
    await expect(evolve(crashing, new ScriptedRoleModel(script), 2)).rejects.toThrow("killed");
    expect(store.listGenerations(lineageIdFor(PARENT))).toHaveLength(1);
    const resumed = new ScriptedRoleModel(script);
    await evolve(store, resumed, 2);
    expect(store.listGenerations(lineageIdFor(PARENT)).map((generation) => generation.generation)).toEqual([1, 2]);
    expect(resumed.promptsOf("modifier")).toHaveLength(1);
  }, 120_000);
});
