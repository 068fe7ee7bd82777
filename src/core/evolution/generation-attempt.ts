import {
  packageId,
  type EnvironmentRecord,
  type EnvPackage,
  type EvolutionAttemptRecord,
  type EvolutionDirection,
  type EvolutionOutcome,
  type GenerationRecord,
  type LanguageModel,
  type LineageRecord,
  type ScenarioSkillSequence,
  type ScenarioSkillStep,
  type Verdict,
} from "../../spec/index.js";
import { admit, type AdmissionResult } from "../admission/index.js";
import { reject } from "../../spec/index.js";
import { raisedLevelChild } from "./raise-level.js";
import { seededRandom } from "../rollout/index.js";
import { deriveSeed } from "../selfplay/sampling.js";
import { packagePatch } from "./child-package.js";
import { frequencyReference, offPolicyDifficulty, type ReferenceDistribution } from "./difficulty.js";
import { chooseDirection, directionInstruction, editSpan } from "./directions.js";
import type { EvolutionDependencies, EvolutionSettings } from "./settings.js";
import { admissionPool, poolSequences } from "./pool.js";
import { modelReference } from "./model-reference.js";
import { runModificationLoop } from "./modification-loop.js";
import { runPlanningLoop } from "./planning-loop.js";
import { rubricsFor } from "./rubrics.js";

/** Where an attempt starts: the lineage, the generation to create and its parent. */
export interface AttemptInput {
  readonly lineage: LineageRecord;
  /** The generation to create (1-based). */
  readonly generation: number;
  /** 0-based attempt number at this generation. */
  readonly attempt: number;
  readonly parent: EnvPackage;
  readonly parentSequence: ScenarioSkillSequence;
  /** Direction of the parent's generation, or null for the seed. */
  readonly previousDirection: EvolutionDirection | null;
}

/** What an attempt produced: its record, and the generation with its environment when it validated. */
export interface AttemptResult {
  readonly record: EvolutionAttemptRecord;
  readonly generation: GenerationRecord | null;
  readonly environment: EnvironmentRecord;
}

/**
 * The reference distributions of the difficulty: the smoothed frequencies, or
 * (settings `reference: "model"`) the model's answers with the frequencies as
 * fallback.
 */
export function referenceFor(steps: readonly ScenarioSkillStep[], frequencies: ReferenceDistribution, model: LanguageModel, settings: EvolutionSettings): Promise<ReferenceDistribution> {
  return settings.reference === "model" ? modelReference(model, steps, frequencies, { ...settings.reviewer, temperature: 0 }) : Promise.resolve(frequencies);
}

/**
 * One attempt at the next generation of a lineage (environment evolution):
 * direction (fixed or the mixed policy) and effort span drawn from seeds
 * derived from (master seed, lineage, generation, attempt); planning loop;
 * the child's sequence (the plan's target) and difficulty; modification loop
 * with its validations; the admission pipeline without calibration.
 * Stores nothing: the caller stores the generation first, then the record.
 * Never throws for untrusted output or model errors.
 */
export async function attemptGeneration(input: AttemptInput, deps: EvolutionDependencies, settings: EvolutionSettings): Promise<AttemptResult> {
  const now = deps.now ?? (() => new Date());
  const started = now().getTime();
  const { lineage, generation: next, attempt: attemptIndex, parent } = input;
  const random = seededRandom(deriveSeed(settings.seed, lineage.id, next, attemptIndex));
  const direction = chooseDirection(settings.direction, input.previousDirection, random);
  const span = editSpan(settings.effort, input.parentSequence.steps.length, random);
  const samplingSeed = deriveSeed(settings.seed, lineage.id, next, attemptIndex, "sampling");
  const parentId = packageId(parent);
  const result = (
    outcome: EvolutionOutcome,
    parts: Partial<Pick<EvolutionAttemptRecord, "planning" | "modification" | "admission">>,
    generation: GenerationRecord | null = null,
    environment: EnvironmentRecord = { id: parentId, package: parent, round: null, scores: null },
  ): AttemptResult => ({
    record: {
      lineageId: lineage.id,
      generation: next,
      attempt: attemptIndex,
      direction,
      effort: settings.effort,
      outcome,
      planning: parts.planning ?? [],
      modification: parts.modification ?? [],
      admission: parts.admission ?? [],
      seconds: Math.round((now().getTime() - started) / 100) / 10,
    },
    generation,
    environment,
  });

  if (direction === "level") {
    // raise the level: no plan and no code edit, the same program one level up (admission still checks it)
    const child = raisedLevelChild(parent, { origin: "evolution", parentId, generation: next, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: now().toISOString() });
    if (child === null) {
      return result("admission_rejected", { admission: [reject("level", "no_higher_level", `${parent.manifest.name} declares ${parent.manifest.levels?.count ?? 1} level(s): there is no higher level to raise it to`)] });
    }
    const admission = await admit(child, deps.gates, { ...deps.admission, sandbox: deps.sandbox, settings: settings.admission, pool: admissionPool(deps.store, parentId), model: deps.model });
    if (!admission.admitted) return result("admission_rejected", { admission: admission.verdicts });
    const steps = input.parentSequence.steps;
    const sequence: ScenarioSkillSequence = { steps, source: "plan" };
    const reference = await referenceFor(steps, frequencyReference(poolSequences(deps.store), deps.corpus, { smoothing: settings.smoothing }), deps.model, settings);
    return validated(child, { summary: "raise the level by one: the parent's level 1 is the child's level 0", steps }, sequence, offPolicyDifficulty(steps, reference), [], admission, {});
  }

  const planning = await runPlanningLoop(
    { parent, sequence: input.parentSequence.steps, direction, effort: settings.effort, span, rubrics: rubricsFor(deps.rubrics.plan, direction) },
    deps.model,
    {
      ...settings.planning,
      proposer: { ...settings.planning.proposer, seed: samplingSeed },
      reviewer: { ...settings.planning.reviewer, seed: samplingSeed + 1000 },
    },
  );
  if (planning.plan === null) {
    return result(allModelErrors(planning.rounds.map((round) => [round.review])) ? "model_error" : "plan_rejected", { planning: planning.rounds });
  }
  const plan = planning.plan;
  // the child's sequence and difficulty are known from the plan; computing them now keeps any
  // model call (reference "model") out of the gap between validation and storing
  const sequence: ScenarioSkillSequence = { steps: plan.steps, source: "plan" };
  const reference = await referenceFor(plan.steps, frequencyReference(poolSequences(deps.store), deps.corpus, { smoothing: settings.smoothing }), deps.model, settings);
  const difficulty = offPolicyDifficulty(sequence.steps, reference);
  const modification = await runModificationLoop(
    {
      parent,
      plan,
      instruction: directionInstruction(direction, settings.effort, span),
      provenance: { origin: "evolution", parentId, generation: next, designerModel: deps.model.id, promptHash: null, corpusDocumentIds: [], createdAt: now().toISOString() },
    },
    {
      admission: { ...deps.admission, sandbox: deps.sandbox, settings: { ...settings.admission, seeds: settings.validationSeeds } },
      model: deps.model,
      rubrics: rubricsFor(deps.rubrics.child, direction),
      reviewer: { ...settings.reviewer, seed: samplingSeed + 2000 },
      grammar: settings.modification.grammar === true,
    },
    { ...settings.modification, modifier: { ...settings.modification.modifier, seed: samplingSeed + 3000 } },
  );
  const rounds = { planning: planning.rounds, modification: modification.rounds };
  if (modification.child === null) {
    return result(allModelErrors(modification.rounds.map((round) => round.verdicts)) ? "model_error" : "validation_failed", rounds);
  }
  const child = modification.child;
  const admission = await admit(child, deps.gates, {
    ...deps.admission,
    sandbox: deps.sandbox,
    settings: settings.admission,
    pool: admissionPool(deps.store, parentId),
    model: deps.model,
  });
  if (!admission.admitted) return result("admission_rejected", { ...rounds, admission: admission.verdicts });
  return validated(child, plan, sequence, difficulty, modification.validations, admission, rounds);

  /** The validated attempt: its generation record and the child's environment. */
  function validated(
    child: EnvPackage,
    plan: GenerationRecord["plan"],
    sequence: ScenarioSkillSequence,
    difficulty: GenerationRecord["difficulty"],
    validations: GenerationRecord["validations"],
    admission: AdmissionResult,
    rounds: Partial<Pick<EvolutionAttemptRecord, "planning" | "modification">>,
  ): AttemptResult {
    const environmentId = packageId(child);
    const generation: GenerationRecord = {
      lineageId: lineage.id,
      generation: next,
      environmentId,
      parentId,
      direction,
      effort: settings.effort,
      plan,
      patch: packagePatch(parent, child),
      validations,
      admission: admission.verdicts,
      sequence,
      difficulty,
      createdAt: child.manifest.provenance.createdAt,
    };
    return result("validated", { ...rounds, admission: admission.verdicts }, generation, { id: environmentId, package: child, round: null, scores: null });
  }
}

function allModelErrors(rounds: readonly (readonly Verdict[])[]): boolean {
  return rounds.length > 0 && rounds.every((verdicts) => verdicts.some((verdict) => verdict.status === "reject" && verdict.reason === "model_error"));
}
