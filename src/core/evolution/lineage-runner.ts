import {
  packageId,
  StoreError,
  type CorpusDocument,
  type EnvPackage,
  type EvolutionAttemptRecord,
  type EvolutionEffort,
  type EvolutionOutcome,
  type GenerationRecord,
  type LanguageModel,
  type LineageRecord,
  type Sandbox,
  type ScenarioSkillSequence,
  type ScenarioSkillStep,
  type Store,
  type Verdict,
} from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { admit, type AdmissionGate } from "../admission/index.js";
import { seededRandom } from "../rollout/index.js";
import { deriveSeed } from "../selfplay/index.js";
import { packagePatch } from "./child-package.js";
import { frequencyReference, offPolicyDifficulty, type ReferenceDistribution } from "./difficulty.js";
import { chooseDirection, directionInstruction, editSpan, type DirectionChoice } from "./directions.js";
import { modelReference } from "./model-reference.js";
import { runModificationLoop, type ModificationSettings } from "./modification-loop.js";
import { oracleTrace } from "./oracle-trace.js";
import { runPlanningLoop, type PlanningSettings } from "./planning-loop.js";
import type { RoleSettings } from "./reviewer.js";
import type { Rubrics } from "./rubrics.js";
import { extractSequence } from "./sequence.js";

/** Settings of an evolution run (from config `evolution.*`). */
export interface EvolutionSettings {
  /** Generations per seed (G). */
  readonly generations: number;
  readonly direction: DirectionChoice;
  readonly effort: EvolutionEffort;
  /** Attempts at one generation before its lineage stops. */
  readonly attemptsPerGeneration: number;
  /** Lineages evolved at the same time. */
  readonly parallelSeeds: number;
  readonly planning: PlanningSettings;
  readonly modification: ModificationSettings;
  readonly reviewer: RoleSettings;
  readonly sequence: RoleSettings;
  /** Seeds the oracle and invalid-test validations play. */
  readonly validationSeeds: readonly number[];
  /** Seeds the admission gates probe. */
  readonly admissionSeeds: readonly number[];
  /** Laplace smoothing α of the reference frequencies. */
  readonly smoothing: number;
  /** Reference distributions: smoothed `frequency` over pool and corpus, or `model` (asked, frequencies as fallback). @default "frequency" */
  readonly reference?: "frequency" | "model";
  /** Master seed for directions, spans and sampling seeds. */
  readonly seed: number;
}

/** Events of an evolution run; all optional. */
export interface EvolutionProgress {
  /** Sequences are being extracted for `total` seeds. */
  sequencesStarted?(total: number): void;
  /** A lineage exists (new or resumed) with `generations` stored generations. */
  lineageReady?(lineage: LineageRecord, generations: number): void;
  /** An attempt at a generation ended. */
  attemptFinished?(attempt: EvolutionAttemptRecord, generation: GenerationRecord | null): void;
  /** A lineage stopped: `done` (G reached) or `stalled` (attempts used up). */
  lineageFinished?(lineageId: string, status: "done" | "stalled", generations: number): void;
  notice?(message: string): void;
}

/** What an evolution run works with. */
export interface EvolutionDependencies {
  readonly model: LanguageModel;
  readonly sandbox: Sandbox;
  readonly store: Store;
  readonly corpus: readonly CorpusDocument[];
  /** The admission pipeline (without calibration), e.g. `defaultGates()`. */
  readonly gates: readonly AdmissionGate[];
  readonly rubrics: Rubrics;
  readonly progress?: EvolutionProgress;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** How each lineage ended. */
export interface LineageOutcome {
  readonly lineageId: string;
  readonly status: "done" | "stalled";
  readonly generations: number;
}

/** Id of the lineage rooted at `seed`: `lin-<name>-<8 hex digits of its content id>`. */
export function lineageIdFor(seed: EnvPackage): string {
  return `lin-${seed.manifest.name}-${packageId(seed).slice(4, 12)}`;
}

/**
 * The pool's sequences: every lineage's seed and every stored generation.
 */
export function poolSequences(store: Store): ScenarioSkillStep[][] {
  const sequences: ScenarioSkillStep[][] = [];
  for (const lineage of store.listLineages()) {
    sequences.push([...lineage.sequence.steps]);
    for (const generation of store.listGenerations(lineage.id)) sequences.push([...generation.sequence.steps]);
  }
  return sequences;
}

/**
 * Environment evolution over `seeds` (off-policy: no rollouts of the target
 * model). First every seed without a stored lineage gets its scenario–skill
 * sequence (model + oracle trace) and a lineage whose difficulty is computed
 * over all seeds' sequences and the corpus. Then each lineage evolves up to
 * `generations` generations, `parallelSeeds` lineages at a time. One attempt
 * at a generation = direction choice → planning loop → modification loop
 * (oracle, invalid-test, rubric validations) → admission pipeline without
 * calibration. A validated, admitted child is stored at once with its
 * environment (atomically) and becomes the next parent; every attempt is
 * stored too. A lineage whose generation fails `attemptsPerGeneration` times
 * stops (`stalled`). Rerunning with the same store resumes: stored lineages,
 * generations and attempts are never redone or lost.
 *
 * @throws StoreError when the store cannot be written
 * @throws SandboxUnavailableError when the sandbox cannot start at all
 */
export async function runEvolution(seeds: readonly EnvPackage[], deps: EvolutionDependencies, settings: EvolutionSettings): Promise<LineageOutcome[]> {
  const lineages = await ensureLineages(seeds, deps, settings);
  return mapWithConcurrency(lineages, settings.parallelSeeds, (lineage) => evolveLineage(lineage, deps, settings));
}

async function ensureLineages(seeds: readonly EnvPackage[], deps: EvolutionDependencies, settings: EvolutionSettings): Promise<LineageRecord[]> {
  const now = deps.now ?? (() => new Date());
  const stored = new Map(deps.store.listLineages().map((lineage) => [lineage.id, lineage]));
  const missing = seeds.filter((seed) => !stored.has(lineageIdFor(seed)));
  if (missing.length > 0) {
    deps.progress?.sequencesStarted?.(missing.length);
    const sequences = await mapWithConcurrency(missing, settings.parallelSeeds, async (seed) => {
      const trace = await oracleTrace(seed, deps.sandbox);
      return extractSequence(seed, trace.text, deps.model, { ...settings.sequence, seed: deriveSeed(settings.seed, lineageIdFor(seed), "sequence") });
    });
    const frequencies = frequencyReference([...poolSequences(deps.store), ...sequences.map((sequence) => [...sequence.steps])], deps.corpus, { smoothing: settings.smoothing });
    for (const [index, seed] of missing.entries()) {
      const sequence = sequences[index] as ScenarioSkillSequence;
      const reference = await referenceFor(sequence.steps, frequencies, deps.model, settings);
      const lineage: LineageRecord = {
        id: lineageIdFor(seed),
        seedId: packageId(seed),
        seedName: seed.manifest.name,
        seed,
        sequence,
        difficulty: offPolicyDifficulty(sequence.steps, reference),
        createdAt: now().toISOString(),
      };
      deps.store.addLineage(lineage);
      deps.store.addEnvironment({ id: lineage.seedId, package: seed, round: null, scores: null });
      stored.set(lineage.id, lineage);
    }
  }
  return seeds.map((seed) => stored.get(lineageIdFor(seed)) as LineageRecord);
}

async function evolveLineage(lineage: LineageRecord, deps: EvolutionDependencies, settings: EvolutionSettings): Promise<LineageOutcome> {
  const { store } = deps;
  const now = deps.now ?? (() => new Date());
  deps.progress?.lineageReady?.(lineage, store.listGenerations(lineage.id).length);
  for (;;) {
    const generations = store.listGenerations(lineage.id);
    const next = generations.length + 1;
    if (next > settings.generations) {
      deps.progress?.lineageFinished?.(lineage.id, "done", generations.length);
      return { lineageId: lineage.id, status: "done", generations: generations.length };
    }
    const attempts = store.listEvolutionAttempts(lineage.id).filter((attempt) => attempt.generation === next);
    if (attempts.length >= settings.attemptsPerGeneration) {
      deps.progress?.lineageFinished?.(lineage.id, "stalled", generations.length);
      return { lineageId: lineage.id, status: "stalled", generations: generations.length };
    }
    const last = generations.at(-1);
    const parent = last === undefined ? lineage.seed : environmentPackage(store, last.environmentId);
    const parentSequence = last === undefined ? lineage.sequence : last.sequence;
    const started = now().getTime();
    const attemptIndex = attempts.length;
    const random = seededRandom(deriveSeed(settings.seed, lineage.id, next, attemptIndex));
    const direction = chooseDirection(settings.direction, last?.direction ?? null, random);
    const span = editSpan(settings.effort, parentSequence.steps.length, random);
    const samplingSeed = deriveSeed(settings.seed, lineage.id, next, attemptIndex, "sampling");
    const finish = (outcome: EvolutionOutcome, parts: Partial<Pick<EvolutionAttemptRecord, "planning" | "modification" | "admission">>, generation: GenerationRecord | null) => {
      const attempt: EvolutionAttemptRecord = {
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
      };
      store.saveEvolutionAttempt(attempt);
      deps.progress?.attemptFinished?.(attempt, generation);
    };

    const planning = await runPlanningLoop(
      { parent, sequence: parentSequence.steps, direction, effort: settings.effort, span, rubrics: deps.rubrics.plan },
      deps.model,
      {
        ...settings.planning,
        proposer: { ...settings.planning.proposer, seed: samplingSeed },
        reviewer: { ...settings.planning.reviewer, seed: samplingSeed + 1000 },
      },
    );
    if (planning.plan === null) {
      finish(allModelErrors(planning.rounds.map((round) => [round.review])) ? "model_error" : "plan_rejected", { planning: planning.rounds }, null);
      continue;
    }
    const plan = planning.plan;
    // the child's sequence and difficulty are known from the plan; computing them now keeps any
    // model call (reference "model") out of the gap between validation and storing
    const sequence: ScenarioSkillSequence = { steps: plan.steps, source: "plan" };
    const reference = await referenceFor(plan.steps, frequencyReference(poolSequences(store), deps.corpus, { smoothing: settings.smoothing }), deps.model, settings);
    const difficulty = offPolicyDifficulty(sequence.steps, reference);
    const parentId = packageId(parent);
    const modification = await runModificationLoop(
      {
        parent,
        plan,
        instruction: directionInstruction(direction, settings.effort, span),
        provenance: {
          origin: "evolution",
          parentId,
          generation: next,
          designerModel: deps.model.id,
          promptHash: null,
          corpusDocumentIds: [],
          createdAt: now().toISOString(),
        },
      },
      {
        sandbox: deps.sandbox,
        seeds: settings.validationSeeds,
        model: deps.model,
        rubrics: deps.rubrics.child,
        reviewer: { ...settings.reviewer, seed: samplingSeed + 2000 },
      },
      { ...settings.modification, modifier: { ...settings.modification.modifier, seed: samplingSeed + 3000 } },
    );
    if (modification.child === null) {
      finish(allModelErrors(modification.rounds.map((round) => round.verdicts)) ? "model_error" : "validation_failed", { planning: planning.rounds, modification: modification.rounds }, null);
      continue;
    }
    const child = modification.child;
    const admission = await admit(child, deps.gates, { sandbox: deps.sandbox, seeds: settings.admissionSeeds });
    if (!admission.admitted) {
      finish("admission_rejected", { planning: planning.rounds, modification: modification.rounds, admission: admission.verdicts }, null);
      continue;
    }
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
      validations: modification.validations,
      admission: admission.verdicts,
      sequence,
      difficulty,
      createdAt: child.manifest.provenance.createdAt,
    };
    // the validated generation is stored before anything else can fail
    store.saveGeneration(generation, { id: environmentId, package: child, round: null, scores: null });
    finish("validated", { planning: planning.rounds, modification: modification.rounds, admission: admission.verdicts }, generation);
  }
}

function referenceFor(steps: readonly ScenarioSkillStep[], frequencies: ReferenceDistribution, model: LanguageModel, settings: EvolutionSettings): Promise<ReferenceDistribution> {
  return settings.reference === "model" ? modelReference(model, steps, frequencies, { ...settings.reviewer, temperature: 0 }) : Promise.resolve(frequencies);
}

function allModelErrors(rounds: readonly (readonly Verdict[])[]): boolean {
  return rounds.length > 0 && rounds.every((verdicts) => verdicts.some((verdict) => verdict.status === "reject" && verdict.reason === "model_error"));
}

function environmentPackage(store: Store, id: string): EnvPackage {
  const record = store.listEnvironments().find((environment) => environment.id === id);
  if (record === undefined) throw new StoreError(`generation environment ${id} is missing from ${store.location}`);
  return record.package;
}
