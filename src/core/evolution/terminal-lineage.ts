import { EnvforgeError, packageId, type EnvironmentRecord, type EnvPackage, type GenerationRecord, type ScenarioSkillSequence, type TerminalTask, type Verdict } from "../../spec/index.js";
import { terminalPackage } from "../terminal/terminal-package.js";
import { filesPatch } from "./child-package.js";
import type { AttemptInput, AttemptResult } from "./generation-attempt.js";
import { REVIEW_GATES } from "./reviewer.js";
import type { EvolutionDependencies, EvolutionSettings, TerminalEvolutionHost } from "./settings.js";
import { attemptTerminalGeneration, extractTerminalSequence } from "./terminal-evolution.js";

/** Thrown when a lineage's seed is a terminal task and the evolution was given no {@link TerminalEvolutionHost}. */
export class TerminalHostMissingError extends EnvforgeError {
  constructor(name: string) {
    super("terminal_host_missing", `${name} is a terminal task: evolving it needs the terminal runtime and task folders (EvolutionDependencies.terminal)`);
  }
}

function hostOf(deps: EvolutionDependencies, pkg: EnvPackage): TerminalEvolutionHost {
  if (deps.terminal === undefined) throw new TerminalHostMissingError(pkg.manifest.name);
  return deps.terminal;
}

/** The scenario–skill sequence of a terminal seed, from its instruction and `solve.sh` ({@link extractTerminalSequence}). */
export function terminalSeedSequence(seed: EnvPackage & { readonly terminal: TerminalTask }, deps: EvolutionDependencies, settings: EvolutionSettings): Promise<ScenarioSkillSequence> {
  const host = hostOf(deps, seed);
  return extractTerminalSequence(seed.terminal, host.readFiles(seed.terminal.folder), deps.model, settings);
}

/**
 * One attempt at the next generation of a terminal lineage, as the lineage runner stores every
 * attempt ({@link AttemptResult}): {@link attemptTerminalGeneration} on the parent's task folder
 * (the terminal gates are the validations and the admission: oracle passes, empty and random
 * controls fail, deterministic tests, hint, novelty against the seeds and every terminal task in
 * the store but the parent; then the rubric review), with the child written by the host as
 * `g<N>-a<attempt>-r<round>` beside the lineage's seed. A validated child becomes a terminal package (provenance
 * `evolution`, `terminal.maxTurns` commands) with its generation record: the plan, the unified diff
 * of the task's files, the verdicts. Never throws for model output or a broken child.
 * @throws TerminalHostMissingError without `deps.terminal`
 */
export async function attemptTerminalLineageGeneration(input: AttemptInput, deps: EvolutionDependencies, settings: EvolutionSettings): Promise<AttemptResult> {
  const host = hostOf(deps, input.parent);
  const parentTask = input.parent.terminal as TerminalTask;
  const parentFiles = host.readFiles(parentTask.folder);
  const parentId = packageId(input.parent);
  // novelty against every other terminal task: the host's seeds (not the parent's original, of which the lineage holds a copy) and the store's
  const pool = [
    ...host.pool.filter((task) => task.filesDigest === undefined || task.filesDigest !== parentTask.filesDigest),
    ...deps.store.listEnvironments().flatMap((record) => (record.package.terminal === undefined || record.id === parentId ? [] : [record.package.terminal])),
  ];
  const seedFolder = (input.lineage.seed.terminal ?? parentTask).folder;
  const result = await attemptTerminalGeneration(
    { task: parentTask, files: parentFiles, sequence: input.parentSequence },
    input.lineage.id,
    input.generation,
    input.attempt,
    input.previousDirection,
    {
      model: deps.model,
      runtime: host.runtime,
      pool,
      rubrics: deps.rubrics,
      corpus: deps.corpus,
      materialize: (files, generation, round) => host.materialize(files, `g${generation}-a${input.attempt}-r${round}`, seedFolder),
    },
    settings,
  );
  const last = result.modification.at(-1)?.verdicts ?? [];
  const gates = (verdicts: readonly Verdict[]) => verdicts.filter((verdict) => verdict.gate !== REVIEW_GATES.child && verdict.gate !== "modify");
  const record = {
    lineageId: input.lineage.id,
    generation: input.generation,
    attempt: input.attempt,
    direction: result.direction,
    effort: settings.effort,
    outcome: result.outcome,
    planning: result.planning,
    modification: result.modification,
    admission: gates(last),
    seconds: result.seconds,
  };
  const parentRecord: EnvironmentRecord = { id: parentId, package: input.parent, round: null, scores: null };
  if (result.child === null || result.plan === null || result.difficulty === null) return { record, generation: null, environment: parentRecord };
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  const child = terminalPackage(result.child.task, host.maxTurns, { origin: "evolution", parentId, generation: input.generation, designerModel: deps.model.id, promptHash: null, corpusDocumentIds: [], createdAt });
  const environmentId = packageId(child);
  const paths = [...new Set([...Object.keys(parentFiles), ...Object.keys(result.child.files)])].sort();
  const generation: GenerationRecord = {
    lineageId: input.lineage.id,
    generation: input.generation,
    environmentId,
    parentId,
    direction: result.direction,
    effort: settings.effort,
    plan: result.plan,
    patch: filesPatch(paths.map((path) => [path, parentFiles[path] ?? "", result.child?.files[path] ?? ""] as const)),
    validations: last.filter((verdict) => verdict.gate === REVIEW_GATES.child),
    admission: gates(last),
    sequence: result.child.sequence,
    difficulty: result.difficulty,
    createdAt,
  };
  return { record, generation, environment: { id: environmentId, package: child, round: null, scores: null } };
}
