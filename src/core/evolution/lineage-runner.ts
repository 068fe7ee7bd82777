import { packageId, StoreError, type EnvPackage, type LineageRecord, type ScenarioSkillSequence, type Store, type TerminalTask } from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { deriveSeed } from "../selfplay/sampling.js";
import { frequencyReference, offPolicyDifficulty } from "./difficulty.js";
import { attemptGeneration, referenceFor } from "./generation-attempt.js";
import type { EvolutionDependencies, EvolutionSettings } from "./settings.js";
import { oracleTrace } from "./oracle-trace.js";
import { poolSequences } from "./pool.js";
import { extractSequence } from "./sequence.js";
import { attemptTerminalLineageGeneration, terminalSeedSequence } from "./terminal-lineage.js";

/** Store metadata key prefix of a seed's extracted sequence (before its lineage exists). */
export const SEQUENCE_META_PREFIX = "evolution-sequence/";

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
 * model), environment programs and terminal tasks alike (a terminal seed's sequence comes from its
 * solve.sh and its attempts from {@link attemptTerminalLineageGeneration}; `deps.terminal` holds its folders). First every seed without a stored lineage gets its scenario–skill
 * sequence (model + oracle trace) and a lineage whose difficulty is computed
 * over all seeds' sequences and the corpus. Then each lineage evolves up to
 * `generations` generations, `parallelSeeds` lineages at a time. One attempt
 * at a generation = direction choice → planning loop → modification loop
 * (oracle, negative-controls, rubric validations) → admission pipeline without
 * calibration. A validated, admitted child is stored at once with its
 * environment (atomically) and becomes the next parent; every attempt is
 * stored too. A lineage whose generation fails `attemptsPerGeneration` times
 * stops (`stalled`). Rerunning with the same store resumes: stored lineages,
 * generations and attempts are never redone or lost.
 *
 * @param evolveLineages evolves the lineages once they exist (e.g. as jobs on `envforge worker`
 *   processes, each running {@link evolveLineage} against the same store); @default {@link evolveLineage}
 *   here, `parallelSeeds` lineages at a time
 * @throws StoreError when the store cannot be written
 * @throws SandboxUnavailableError when the sandbox cannot start at all
 */
export async function runEvolution(
  seeds: readonly EnvPackage[],
  deps: EvolutionDependencies,
  settings: EvolutionSettings,
  evolveLineages: (lineages: readonly LineageRecord[]) => Promise<LineageOutcome[]> = (lineages) => mapWithConcurrency(lineages, settings.parallelSeeds, (lineage) => evolveLineage(lineage, deps, settings)),
): Promise<LineageOutcome[]> {
  return evolveLineages(await ensureLineages(seeds, deps, settings));
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
      const sequence = isTerminal(seed)
        ? await terminalSeedSequence(seed, deps, settings)
        : await extractSequence(seed, (await oracleTrace(seed, deps.sandbox)).text, deps.model, { ...settings.sequence, seed: deriveSeed(settings.seed, lineageIdFor(seed), "sequence") });
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

/**
 * Evolves one lineage from where its store stands to `settings.generations` generations, or until a
 * generation fails `attemptsPerGeneration` times (see {@link runEvolution}). Safe to run again on the
 * same store, by this process or another (a job re-run after its worker died): stored generations
 * and attempts are never redone, an attempt in flight is made again.
 * @throws StoreError when the store cannot be written
 */
export async function evolveLineage(lineage: LineageRecord, deps: EvolutionDependencies, settings: EvolutionSettings): Promise<LineageOutcome> {
  const { store } = deps;
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
    // a terminal lineage's children are task folders checked by the terminal gates; the record is the same
    const attempt = isTerminal(input.parent) ? await attemptTerminalLineageGeneration(input, deps, settings) : await attemptGeneration(input, deps, settings);
    if (attempt.generation !== null) {
      // the validated generation is stored before anything else can fail
      store.saveGeneration(attempt.generation, attempt.environment);
    }
    store.saveEvolutionAttempt(attempt.record);
    deps.progress?.attemptFinished?.(attempt.record, attempt.generation);
  }
}

function isTerminal(pkg: EnvPackage): pkg is EnvPackage & { readonly terminal: TerminalTask } {
  return pkg.terminal !== undefined;
}

function environmentPackage(store: Store, id: string): EnvPackage {
  const record = store.listEnvironments().find((environment) => environment.id === id);
  if (record === undefined) throw new StoreError(`generation environment ${id} is missing from ${store.location}`);
  return record.package;
}
