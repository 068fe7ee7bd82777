import type { EnvPackage } from "./env-package.js";
import type { Episode, EpisodeRole } from "./episode.js";
import type { EvolutionAttemptRecord, FrontierProbeRecord, GenerationRecord, LineageRecord } from "./lineage.js";
import type { RoundReport } from "./report.js";
import type { Verdict } from "./verdict.js";

/** The file a run or evolution folder keeps its SQLite store in (the embedded default). */
export const RUN_STORE_FILE = "envforge.db";

/** Calibration scores of an environment (SPADE hint regret and win rates). */
export interface EnvironmentScores {
  /** Plays per hint condition. */
  readonly plays: number;
  readonly winRateNoHint: number;
  readonly winRateHint: number;
  readonly meanReturnNoHint: number;
  readonly meanReturnHint: number;
  /** `max(0, meanReturnHint − meanReturnNoHint)`. */
  readonly regret: number;
  /** Designer reward the design earned. */
  readonly designerReward: number;
  /**
   * The level of a levelled family that calibration found in the Solver's band, at which these
   * scores were played and where the level controller starts the family's window (absent: level 0,
   * or a family of one level).
   */
  readonly level?: number;
}

/** An environment in memory. `round` is null for the seed environments. */
export interface EnvironmentRecord {
  readonly id: string;
  readonly package: EnvPackage;
  readonly round: number | null;
  readonly scores: EnvironmentScores | null;
}

/** One Designer completion and what became of it. */
export interface DesignRecord {
  readonly round: number;
  /** Position within the round, 0-based. */
  readonly index: number;
  readonly promptHash: string;
  readonly corpusDocumentIds: readonly string[];
  /** Raw completion text ("" when the model failed). */
  readonly completion: string;
  /** Verdicts in the order the stages ran; the last decides. */
  readonly verdicts: readonly Verdict[];
  /** Id of the admitted environment, or null. */
  readonly environmentId: string | null;
  /** Designer reward. */
  readonly reward: number;
  /** Policy version the completion was sampled with (absent in stores written before training landed). */
  readonly policyVersion?: number;
  /** The sampled tokens, when the model gave them: what a Designer training datum is built from. */
  readonly tokens?: DesignTokens;
  /**
   * The attempts before `completion`, oldest first, when repair turns ran (`designer.repairTurns`): each
   * completion with the verdicts that sent it back. Absent or empty: the design took one attempt. The turn
   * that admitted an environment is `repairs.length` (0 = the first attempt).
   */
  readonly repairs?: readonly DesignAttempt[];
}

/** One rejected attempt of a multi-turn design: the completion and the verdicts that sent it back to the Designer. */
export interface DesignAttempt {
  readonly completion: string;
  readonly verdicts: readonly Verdict[];
}

/**
 * Token ids of one Designer sample: prompt (chat template included) and completion with its sampling
 * logprobs. With repair turns, `prompt`/`completion`/`logprobs` are the first attempt and `repairs` the later
 * ones, each with the whole conversation before it as its `prompt`.
 */
export interface DesignTokens {
  readonly prompt: readonly number[];
  readonly completion: readonly number[];
  /** Natural-log sampling probability of each completion token. */
  readonly logprobs: readonly number[];
  /** Later attempts of a multi-turn design, in order (absent: one attempt). */
  readonly repairs?: readonly DesignTurnTokens[];
}

/** The tokens of one repair attempt: the conversation so far (template included), then the sampled completion. */
export interface DesignTurnTokens {
  readonly prompt: readonly number[];
  readonly completion: readonly number[];
  readonly logprobs: readonly number[];
}

/** A stored episode with its context. */
export interface EpisodeRecord {
  readonly round: number;
  readonly environmentId: string;
  readonly role: EpisodeRole;
  readonly hint: boolean;
  readonly policyVersion: number;
  readonly episode: Episode;
}

/** Progress marker of a round. */
export interface RoundRecord {
  readonly round: number;
  readonly status: "running" | "done";
  readonly solverPhaseDone: boolean;
  readonly report: RoundReport | null;
}

/**
 * Persistent memory of one run: environments with lineage and scores, episodes
 * with full transcripts, designs with verdicts, rounds with statistics. Writes
 * that belong together are atomic, so a run killed at any point and resumed
 * neither loses nor duplicates an admitted environment.
 *
 * @throws StoreError when the store cannot be opened or written
 */
export interface Store {
  /** Where the store lives (a file path for SQLite). */
  readonly location: string;
  /** Saves a metadata value (run config, model spec). */
  setMeta(key: string, value: unknown): void;
  /** Reads a metadata value, or undefined. */
  getMeta(key: string): unknown;
  /**
   * Saves a metadata value unless the key is present, atomically: returns true when this call saved
   * it. Two processes claiming one key (two orchestrators starting one run) get true once.
   */
  claimMeta(key: string, value: unknown): boolean;
  /** Inserts an environment unless its id is present; returns true when inserted. */
  addEnvironment(record: EnvironmentRecord): boolean;
  /** All environments in memory, oldest first. */
  listEnvironments(): EnvironmentRecord[];
  /** Marks `round` running (creating it when absent) and returns its record. */
  beginRound(round: number): RoundRecord;
  /** All rounds, in order. */
  listRounds(): RoundRecord[];
  /** Replaces the round's solver episodes with `episodes` and marks the solver phase done, atomically. */
  saveSolverPhase(round: number, episodes: readonly EpisodeRecord[]): void;
  /** Solver-phase and calibration episodes of a round. */
  listEpisodes(round: number): EpisodeRecord[];
  /**
   * Stores a design and, when admitted, its environment and calibration episodes,
   * atomically. A design already stored at (round, index) is left unchanged.
   */
  saveDesign(design: DesignRecord, admitted?: { environment: EnvironmentRecord; episodes: readonly EpisodeRecord[] }): void;
  /** Designs of a round, by index. */
  listDesigns(round: number): DesignRecord[];
  /** Marks the round done with its report. */
  finishRound(round: number, report: RoundReport): void;
  /** Closes the store. */
  close(): void;

  // Environment evolution (lineages, generations, attempts, frontier probes).

  /** Inserts a lineage unless its id is present; returns true when inserted. */
  addLineage(record: LineageRecord): boolean;
  /** All lineages, oldest first. */
  listLineages(): LineageRecord[];
  /**
   * Stores a validated generation together with its environment, atomically.
   * A generation already stored at (lineageId, generation) is left unchanged;
   * returns true when inserted.
   */
  saveGeneration(generation: GenerationRecord, environment: EnvironmentRecord): boolean;
  /** Generations of a lineage, in order. */
  listGenerations(lineageId: string): GenerationRecord[];
  /** Stores an attempt; an attempt already stored at (lineageId, generation, attempt) is left unchanged. */
  saveEvolutionAttempt(attempt: EvolutionAttemptRecord): void;
  /** Attempts of a lineage, by generation then attempt. */
  listEvolutionAttempts(lineageId: string): EvolutionAttemptRecord[];
  /** Stores a frontier probe; a probe already stored at (lineageId, round) is left unchanged. */
  saveFrontierProbe(probe: FrontierProbeRecord): void;
  /** All frontier probes, in the order stored. */
  listFrontierProbes(): FrontierProbeRecord[];
}
