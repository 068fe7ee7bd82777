/**
 * Events a self-play run emits while it works; the CLI turns them into a
 * progress display. All methods are optional to implement.
 */
/** The phases of a round: Solver episodes, Designer designs, the training step. */
export type RoundPhase = "solver" | "designer" | "training";

export interface ProgressListener {
  /** A phase of a round begins with `total` units of work. */
  phaseStarted?(round: number, phase: RoundPhase, total: number): void;
  /** One unit of the current phase finished; `detail` is a short description. */
  unitDone?(round: number, phase: RoundPhase, detail: string): void;
  /** Work inside the current unit, before it finishes (e.g. a design's rejected attempt before its repair turn); `detail` is a short description. */
  unitProgress?(round: number, phase: RoundPhase, detail: string): void;
  /** A free-form notice (resume, skipped work, infrastructure errors). */
  notice?(message: string): void;
}
