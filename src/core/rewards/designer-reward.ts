/**
 * Constants of the SPADE Designer reward (design map, "Key formulas").
 * All are configurable through the `reward` config block.
 */
export interface DesignerRewardParams {
  /** Regret normaliser: `regret_norm = min(regret / regretScale, 1)`. @default 0.15 */
  readonly regretScale: number;
  /** Weight of `regret_norm`. @default 0.4 */
  readonly regretWeight: number;
  /** Weight of the difficulty anchor. @default 0.6 */
  readonly anchorWeight: number;
  /** Flat top of the anchor: [anchorLow, anchorHigh] of the no-hint win rate. @default 0.4, 0.6 */
  readonly anchorLow: number;
  readonly anchorHigh: number;
  /** Linear decay width outside the flat top. @default 0.25 */
  readonly anchorWidth: number;
}

/** Default {@link DesignerRewardParams} (SPADE). */
export const DEFAULT_DESIGNER_REWARD: DesignerRewardParams = {
  regretScale: 0.15,
  regretWeight: 0.4,
  anchorWeight: 0.6,
  anchorLow: 0.4,
  anchorHigh: 0.6,
  anchorWidth: 0.25,
};

/**
 * Hint regret (SPADE): mean return with the hint minus mean return without it,
 * both over plays at the same policy version, floored at 0.
 *
 * @param returnsWithHint episode returns of plays that saw the hint
 * @param returnsWithoutHint episode returns of plays that did not
 * @returns regret ≥ 0 (0 when either list is empty)
 */
export function hintRegret(returnsWithHint: readonly number[], returnsWithoutHint: readonly number[]): number {
  if (returnsWithHint.length === 0 || returnsWithoutHint.length === 0) return 0;
  return Math.max(0, mean(returnsWithHint) - mean(returnsWithoutHint));
}

/**
 * Difficulty anchor (SPADE, flat top): 1 when the no-hint win rate w lies in
 * [anchorLow, anchorHigh]; below, `max(0, 1 − (anchorLow − w)/anchorWidth)`;
 * above, `max(0, 1 − (w − anchorHigh)/anchorWidth)`.
 *
 * @param winRate no-hint win rate in [0, 1]
 */
export function difficultyAnchor(winRate: number, params: DesignerRewardParams = DEFAULT_DESIGNER_REWARD): number {
  if (winRate < params.anchorLow) return Math.max(0, 1 - (params.anchorLow - winRate) / params.anchorWidth);
  if (winRate > params.anchorHigh) return Math.max(0, 1 - (winRate - params.anchorHigh) / params.anchorWidth);
  return 1;
}

/**
 * Designer reward of an admitted environment (SPADE regret blend):
 * `regretWeight · min(regret / regretScale, 1) + anchorWeight · anchor(w)`.
 *
 * @param regret hint regret from {@link hintRegret}
 * @param winRateNoHint no-hint win rate in [0, 1]
 * @returns reward in [0, regretWeight + anchorWeight] (default [0, 1])
 */
export function designerReward(
  regret: number,
  winRateNoHint: number,
  params: DesignerRewardParams = DEFAULT_DESIGNER_REWARD,
): number {
  const regretNorm = Math.min(Math.max(0, regret) / params.regretScale, 1);
  return params.regretWeight * regretNorm + params.anchorWeight * difficultyAnchor(winRateNoHint, params);
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0) / values.length;
}
