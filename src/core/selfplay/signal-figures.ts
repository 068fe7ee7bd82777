import type { RoundReport } from "../../spec/index.js";

/**
 * The figures of one arm of `envforge bench signal` (issue 29): over every
 * round of a run, the Solver groups with a learning signal (returns that
 * differ, not only the invalid-action penalty; see `solverSignal`), the win
 * rate without and with the hint, the share of invalid actions, and how many
 * level windows moved.
 */
export interface SignalFigures {
  readonly rounds: number;
  readonly episodes: number;
  readonly groups: number;
  readonly returnVariance: number;
  readonly penaltyOnly: number;
  /** `returnVariance / groups`, or null without groups. */
  readonly signalFraction: number | null;
  /** Wins over episodes without the hint (null: none played). */
  readonly winRateNoHint: number | null;
  readonly winRateHint: number | null;
  /** Mean of the rounds' invalid-action rates (null: no action). */
  readonly invalidActionRate: number | null;
  /** Level windows that rose, summed over rounds and environments. */
  readonly windowsRaised: number;
  /** Highest window top reached by any environment (0 without levelled environments). */
  readonly highestLevel: number;
}

/**
 * {@link SignalFigures} of a run's round reports. Win rates weight rounds by
 * their episodes per condition (half of each round's Solver episodes are
 * without the hint, half with).
 */
export function signalFigures(reports: readonly RoundReport[]): SignalFigures {
  let episodes = 0;
  let groups = 0;
  let returnVariance = 0;
  let penaltyOnly = 0;
  let winsNoHint = 0;
  let winsHint = 0;
  let windowsRaised = 0;
  let highestLevel = 0;
  const invalidRates: number[] = [];
  for (const report of reports) {
    const half = report.solver.episodes / 2;
    episodes += report.solver.episodes;
    winsNoHint += (report.solver.winRateNoHint ?? 0) * half;
    winsHint += (report.solver.winRateHint ?? 0) * half;
    if (report.solver.invalidActionRate != null) invalidRates.push(report.solver.invalidActionRate);
    groups += report.solver.signal?.groups ?? 0;
    returnVariance += report.solver.signal?.returnVariance ?? 0;
    penaltyOnly += report.solver.signal?.penaltyOnly ?? 0;
    for (const level of report.levels ?? []) {
      if (level.next[1] > level.window[1]) windowsRaised += 1;
      highestLevel = Math.max(highestLevel, level.window[1], level.next[1]);
    }
  }
  const rate = (wins: number) => (episodes === 0 ? null : Math.round(wins) / (episodes / 2));
  return {
    rounds: reports.length,
    episodes,
    groups,
    returnVariance,
    penaltyOnly,
    signalFraction: groups === 0 ? null : returnVariance / groups,
    winRateNoHint: rate(winsNoHint),
    winRateHint: rate(winsHint),
    invalidActionRate: invalidRates.length === 0 ? null : invalidRates.reduce((total, value) => total + value, 0) / invalidRates.length,
    windowsRaised,
    highestLevel,
  };
}
