import type { EpisodeRecord } from "../../spec/index.js";
import { groupKeyString } from "./group-key.js";

/**
 * How much learning signal a set of Solver episodes holds for GRPO (issue 29's
 * figure): Solver groups (the plays of one environment under one hint
 * condition at one policy version, as `advantages` groups them) with at least
 * two episodes, split by what makes their rewards differ. A group whose rewards
 * are all equal has zero advantage (no gradient); a group whose returns are all
 * equal but whose invalid-action or sandbox-cut penalties differ teaches only
 * the answer format.
 */
export interface SolverSignal {
  /** Groups with at least two episodes. */
  readonly groups: number;
  /** Groups whose episode returns (task reward, clipped, no penalty) are not all equal. */
  readonly returnVariance: number;
  /** Groups with equal returns whose penalties (invalid actions, sandbox cuts) differ. */
  readonly penaltyOnly: number;
  /** Groups whose rewards are all equal. */
  readonly constant: number;
  /** `returnVariance / groups`, or null without groups. */
  readonly fraction: number | null;
}

/**
 * The {@link SolverSignal} of `episodes` (only `role: "solver"` records count;
 * calibration plays are not trained on as Solver groups).
 */
export function solverSignal(episodes: readonly EpisodeRecord[]): SolverSignal {
  const groups = new Map<string, EpisodeRecord[]>();
  for (const record of episodes) {
    if (record.role !== "solver") continue;
    const key = groupKeyString({ role: "solver", environmentId: record.environmentId, hint: record.hint, policyVersion: record.policyVersion });
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  let counted = 0;
  let returnVariance = 0;
  let penaltyOnly = 0;
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    counted += 1;
    const returns = new Set(group.map((record) => record.episode.return));
    const penalties = new Set(
      group.map((record) => `${record.episode.turns.filter((turn) => turn.invalidAction === true).length}/${record.episode.failure === undefined ? "" : record.episode.failure.kind}`),
    );
    if (returns.size > 1) returnVariance += 1;
    else if (penalties.size > 1) penaltyOnly += 1;
  }
  return { groups: counted, returnVariance, penaltyOnly, constant: counted - returnVariance - penaltyOnly, fraction: counted === 0 ? null : returnVariance / counted };
}
