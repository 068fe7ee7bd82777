import {
  packageId,
  StoreError,
  type CorpusDocument,
  type EnvPackage,
  type EvolutionAttemptRecord,
  type EvolutionEffort,
  type GenerationRecord,
  type LanguageModel,
  type LineageRecord,
  type Sandbox,
  type ScenarioSkillSequence,
  type Store,
} from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import type { AdmissionGate, AdmissionResources, AdmissionSettings } from "../admission/index.js";
import { deriveSeed } from "../selfplay/sampling.js";
import { frequencyReference, offPolicyDifficulty } from "./difficulty.js";
import type { DirectionChoice } from "./directions.js";
import { attemptGeneration, referenceFor } from "./generation-attempt.js";
import type { ModificationSettings } from "./modification-loop.js";
import { oracleTrace } from "./oracle-trace.js";
import type { PlanningSettings } from "./planning-loop.js";
import { poolSequences } from "./pool.js";
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
  /** Settings of the admission gates a child passes (the config's `admission` block: seeds, thresholds). */
  readonly admission: AdmissionSettings;
  /** Laplace smoothing α of the reference frequencies. */
  readonly smoothing: number;
  /** Reference distributions: smoothed `frequency` over pool and corpus, or `model` (asked, frequencies as fallback). @default "frequency" */
  readonly reference?: "frequency" | "model";
  /** Master seed for directions, spans and sampling seeds. */
  readonly seed: number;
}

/** Store metadata key prefix of a seed's extracted sequence (before its lineage exists). */
export const SEQUENCE_META_PREFIX = "evolution-sequence/";

/** Events of an evolution run; all optional. */
export interface EvolutionProgress {
  /** Sequences are being extracted for `total` seeds. */
  sequencesStarted?(total: number): void;
  /** One seed's sequence was extracted. */
  sequenceExtracted?(seedName: string, sequence: ScenarioSkillSequence): void;
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
  /** The admission pipeline a child passes: every configured gate except calibration (see {@link evolutionGates}). */
  readonly gates: readonly AdmissionGate[];
  /** Run-long admission resources (source inspector, fingerprint cache, benchmark texts, self-review rubric). */
  readonly admission: AdmissionResources;
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
      // each extracted sequence is kept at once, so an interrupted start does not extract it again
      const key = `${SEQUENCE_META_PREFIX}${packageId(seed)}`;
      const cached = deps.store.getMeta(key) as ScenarioSkillSequence | undefined;
      if (cached !== undefined) return cached;
      const trace = await oracleTrace(seed, deps.sandbox);
      const sequence = await extractSequence(seed, trace.text, deps.model, { ...settings.sequence, seed: deriveSeed(settings.seed, lineageIdFor(seed), "sequence") });
      deps.store.setMeta(key, sequence);
      deps.progress?.sequenceExtracted?.(seed.manifest.name, sequence);
      return sequence;
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
    const input = {
      lineage,
      generation: next,
      attempt: attempts.length,
      parent: last === undefined ? lineage.seed : environmentPackage(store, last.environmentId),
      parentSequence: last === undefined ? lineage.sequence : last.sequence,
      previousDirection: last?.direction ?? null,
    };
    const attempt = await attemptGeneration(input, deps, settings);
    if (attempt.generation !== null) {
      // the validated generation is stored before anything else can fail
      store.saveGeneration(attempt.generation, attempt.environment);
    }
    store.saveEvolutionAttempt(attempt.record);
    deps.progress?.attemptFinished?.(attempt.record, attempt.generation);
  }
}

function environmentPackage(store: Store, id: string): EnvPackage {
  const record = store.listEnvironments().find((environment) => environment.id === id);
  if (record === undefined) throw new StoreError(`generation environment ${id} is missing from ${store.location}`);
  return record.package;
}
