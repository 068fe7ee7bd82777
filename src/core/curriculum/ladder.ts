/**
 * The one promotion mechanism of envforge's curricula: a ladder of rungs
 * (difficulty levels of a family, or generations of an evolved lineage) with a
 * window `[low, high]` of rungs in play. Outcomes arrive in batches (one round's
 * rollouts, one frontier probe); outcomes at the top rung `high` are counted,
 * and after a batch that brings their number to at least `minSamples` the
 * ladder decides: when the pass rate at `high` is at least `threshold` and a
 * higher rung exists, `high` rises by one and `low` follows so that the window
 * keeps at most `window` rungs; either way the count at the top starts afresh.
 *
 * - Level controller (RLVE, adaptive difficulty, section 2: a window `[l, h]`
 *   per environment, problems sampled uniformly in it, `h` raised once the
 *   accuracy at `h` reaches τ_acc = 0.9 over enough samples, at most d levels
 *   kept): `threshold` = τ_acc, `minSamples` = the samples before a decision,
 *   `window` = d.
 * - Frontier scheduler (environment evolution: release the next generation at a
 *   pass rate of ≥ 6/8 over a probe of 8 rollouts): `threshold` = 6/8,
 *   `minSamples` = 1 (every probe decides on its own), `window` = 1 (training
 *   samples only the frontier generation).
 */

/** The promotion rule of a ladder. */
export interface LadderRule {
  /** Pass rate at the top rung that promotes (τ_acc), in (0, 1]. */
  readonly threshold: number;
  /** Outcomes at the top rung needed before a decision; at least 1. */
  readonly minSamples: number;
  /** Most rungs in the window `[low, high]` (d); at least 1. */
  readonly window: number;
}

/** Where a ladder stands: the window and the outcomes counted at its top rung since the last decision. */
export interface LadderState {
  /** Lowest rung in play. */
  readonly low: number;
  /** Highest rung in play (the one being judged). */
  readonly high: number;
  /** Outcomes at `high` since the last decision. */
  readonly attempts: number;
  /** Wins among `attempts`. */
  readonly wins: number;
}

/** One outcome: the rung it was played at, and whether it was won. */
export interface LadderOutcome {
  readonly rung: number;
  readonly won: boolean;
}

/** What one batch did to a ladder. */
export interface LadderStep {
  readonly state: LadderState;
  /** The batch reached `minSamples` at the top rung, so the ladder judged it. */
  readonly decided: boolean;
  /** The judgement raised `high`. */
  readonly promoted: boolean;
}

/** A ladder at rung `start` (window `[start, start]`, nothing counted). @default start 0 */
export function startLadder(start = 0): LadderState {
  return { low: start, high: start, attempts: 0, wins: 0 };
}

/**
 * Whether `wins` of `attempts` reach `threshold` (compared with a tolerance of
 * 1e-9, so that 27 of 30 reaches 0.9 and 6 of 8 reaches 6/8).
 */
export function reachesThreshold(wins: number, attempts: number, threshold: number): boolean {
  return attempts > 0 && wins >= threshold * attempts - 1e-9;
}

/**
 * Applies one batch of outcomes to `state` (see the module comment): outcomes at
 * rungs other than `state.high` do not count; once at least `rule.minSamples`
 * outcomes at `high` are counted, the ladder promotes when their pass rate
 * reaches `rule.threshold` and `high < topRung`, and starts its count afresh.
 *
 * @param topRung the highest rung that exists (levels − 1, or generations − 1)
 */
export function climbLadder(state: LadderState, outcomes: readonly LadderOutcome[], rule: LadderRule, topRung: number): LadderStep {
  const atTop = outcomes.filter((outcome) => outcome.rung === state.high);
  const attempts = state.attempts + atTop.length;
  const wins = state.wins + atTop.filter((outcome) => outcome.won).length;
  if (attempts < Math.max(1, rule.minSamples) || atTop.length === 0) return { state: { ...state, attempts, wins }, decided: false, promoted: false };
  const promoted = state.high < topRung && reachesThreshold(wins, attempts, rule.threshold);
  const high = promoted ? state.high + 1 : state.high;
  const low = Math.max(state.low, high - Math.max(1, rule.window) + 1);
  return { state: { low, high, attempts: 0, wins: 0 }, decided: true, promoted };
}
