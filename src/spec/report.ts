/**
 * Statistics of one self-play round, as written to `report.json` (one entry per
 * round). Rates are fractions in [0, 1] or null when no episode was played.
 */
export interface RoundReport {
  readonly round: number;
  /** Designer completions requested this round. */
  readonly proposed: number;
  /** Designs that passed admission and were stored in memory. */
  readonly admitted: number;
  /** Rejected designs by reason code (e.g. `unparseable`, `oracle_failed`, `model_error`). */
  readonly rejected: Readonly<Record<string, number>>;
  readonly solver: {
    readonly episodes: number;
    readonly winRateNoHint: number | null;
    readonly winRateHint: number | null;
    /**
     * Fraction of the round's actions the environments refused (`Turn.invalidAction`), in [0, 1];
     * null when no action was played. Absent in reports written before it existed.
     */
    readonly invalidActionRate?: number | null;
    /**
     * Learning signal of the round's Solver groups (plays of one environment under one hint condition):
     * groups of at least two episodes, those whose returns differ, those that differ only in the
     * invalid-action or sandbox-cut penalty, those all equal, and `returnVariance / groups`.
     * Absent in reports written before levels.
     */
    readonly signal?: { readonly groups: number; readonly returnVariance: number; readonly penaltyOnly: number; readonly constant: number; readonly fraction: number | null };
  };
  /**
   * The level window of every levelled environment the Solver played this round (the level
   * controller, config `levels`): the window the round sampled from, the one the next round
   * samples from, and the no-hint episodes and wins per level. Absent in older reports.
   */
  readonly levels?: readonly LevelReport[];
  readonly designer: {
    readonly meanReward: number | null;
    /** Attempts per design, repair turns included (absent in reports written before repair turns). */
    readonly meanAttempts?: number | null;
    /** Admitted designs by the attempt that admitted them (`"0"` = the first; absent in older reports). */
    readonly admittedOnTurn?: Readonly<Record<string, number>>;
    /** Names of the environments admitted this round (absent in older reports). */
    readonly admittedNames?: readonly string[];
  };
  /**
   * Trainer backend and policy version after the round, datums sent in its step, and
   * the logprob probe: mean learner logprob per token of a fixed prompt + completion
   * after the step, and its change since before the first step (absent on `noop`).
   */
  readonly trainer: {
    readonly name: string;
    readonly policyVersion: number;
    readonly datums: number;
    readonly probe?: { readonly policyVersion: number; readonly meanLogprob: number; readonly deltaFromStart: number; readonly tokens: number };
    /**
     * Engine–trainer mismatch over the step's Solver tokens when the policy samples on an inference
     * engine: mean KL(engine ‖ trainer) estimate (nats per token), largest ratio π_trainer/π_engine,
     * fraction of tokens truncated at the importance cap, mean truncated weight folded into the advantages.
     */
    readonly samplerMismatch?: { readonly tokens: number; readonly klEstimate: number; readonly maxRatio: number; readonly truncatedFraction: number; readonly meanWeight: number };
  };
  /**
   * Per-role training diagnostics of the round's step (reward and advantage
   * moments, groups kept/dropped, masked token fraction, importance weights;
   * Designer regret distribution, win rates, admission funnel): the value of
   * `stepDiagnostics` in `core/advantages`, a plain JSON object.
   */
  readonly diagnostics: object;
  /** Distinct infrastructure errors of the round (model unreachable, sandbox failures), with counts. */
  readonly errors: Readonly<Record<string, number>>;
  /** Wall-clock duration in seconds of this attempt at the round (a resumed round: the resumed part only). */
  readonly seconds: number;
  /**
   * A resumed round: wall-clock seconds its earlier attempts spent on work they stored (the Solver
   * phase, each design), so the round took `seconds + earlierSeconds` in all (time after an
   * attempt's last stored step is lost with it). Absent on a round run in one go.
   */
  readonly earlierSeconds?: number;
  /** Wall-clock seconds per phase of this attempt (a phase skipped on resume counts 0). */
  readonly phaseSeconds?: { readonly solver: number; readonly designer: number; readonly training: number };
}

/** One levelled environment's level window in a round ({@link RoundReport.levels}). */
export interface LevelReport {
  readonly environmentId: string;
  readonly name: string;
  /** Declared levels. */
  readonly count: number;
  /** Window `[low, high]` the round sampled from. */
  readonly window: readonly [number, number];
  /** Window after the round's episodes (what the next round samples from). */
  readonly next: readonly [number, number];
  /** No-hint Solver episodes and wins by level played, keys are levels. */
  readonly byLevel: Readonly<Record<string, { readonly episodes: number; readonly wins: number }>>;
}
