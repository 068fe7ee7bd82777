import type { Config } from "../../config/index.js";
import { buildGates, type AdmissionGate, type AdmissionSettings } from "../admission/index.js";
import type { CorpusDocument, EvolutionAttemptRecord, EvolutionEffort, GenerationRecord, LanguageModel, LineageRecord, RejectVerdict, Sandbox, ScenarioSkillSequence, Store, TerminalRuntime, TerminalTask } from "../../spec/index.js";
import type { TaskFiles } from "../terminal/index.js";
import type { AdmissionResources } from "../admission/index.js";
import type { DirectionChoice } from "./directions.js";
import type { ModificationSettings } from "./modification-loop.js";
import type { PlanningSettings } from "./planning-loop.js";
import type { RoleSettings } from "./reviewer.js";
import type { Rubrics } from "./rubrics.js";

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
  /** Episode seeds (0..n−1) the oracle and negative-controls validations play. */
  readonly validationSeeds: number;
  /** Settings of the admission gates a child passes (the config's `admission` block: seeds, thresholds). */
  readonly admission: AdmissionSettings;
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
  /** What terminal lineages (seeds with `package.terminal`) need; absent: a terminal seed is an error. */
  readonly terminal?: TerminalEvolutionHost;
}

/**
 * The file side of terminal lineages (the CLI's): task folders are read and written by the caller,
 * the core decides what goes in them.
 */
export interface TerminalEvolutionHost {
  /** The jail the terminal gates play in. */
  readonly runtime: TerminalRuntime;
  /** The text files of a task folder, by path relative to it. */
  readFiles(folder: string): TaskFiles;
  /**
   * Writes a child's files as a new task folder named `name` (`g<N>-a<attempt>-r<round>`, unique
   * within its lineage; the folder of a validated child stays where it was written) for the lineage
   * whose seed's folder is `seedFolder`, and reads it back: the task, or the `static` verdict of a
   * folder that does not read.
   */
  materialize(files: TaskFiles, name: string, seedFolder: string): TerminalTask | RejectVerdict;
  /** Tasks every child must differ from besides the lineages' own (the terminal seeds; a copy of the parent, same `filesDigest`, is left out). */
  readonly pool: readonly TerminalTask[];
  /** Commands per episode of a stored terminal environment (`terminal.maxTurns`). */
  readonly maxTurns: number;
}


/**
 * {@link EvolutionSettings} from a validated config: `evolution.*` for the
 * loops, the `admission` block for the admission gates, `seed` as the
 * master seed.
 */
export function evolutionSettingsFromConfig(config: Config): EvolutionSettings {
  const evolution = config.evolution;
  const role = (maxTokens: number) => ({ maxTokens, temperature: evolution.temperature });
  return {
    generations: evolution.generations,
    direction: evolution.direction,
    effort: evolution.effort,
    attemptsPerGeneration: evolution.attemptsPerGeneration,
    parallelSeeds: evolution.parallelSeeds,
    planning: { maxRounds: evolution.planningRounds, proposer: role(evolution.planMaxTokens), reviewer: role(evolution.reviewMaxTokens), grammar: evolution.grammar },
    modification: { maxRounds: evolution.modificationRounds, modifier: role(evolution.modifierMaxTokens), form: evolution.modifierForm, grammar: evolution.grammar },
    reviewer: role(evolution.reviewMaxTokens),
    sequence: role(evolution.sequenceMaxTokens),
    validationSeeds: evolution.validationSeeds,
    admission: config.admission,
    smoothing: evolution.smoothing,
    reference: evolution.reference,
    seed: config.seed,
  };
}

/**
 * The admission pipeline of evolved children: the configured gates
 * (`admission.gates` minus `admission.skip`, cheapest first) without
 * `calibration`, which needs Solver rollouts and evolution is off-policy.
 */
export function evolutionGates(admission: Pick<AdmissionSettings, "gates" | "skip">): AdmissionGate[] {
  return buildGates(admission).filter((gate) => gate.name !== "calibration");
}
