import type { RateInterval } from "../../spec/index.js";

/** z for a two-sided 95 % interval: Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;

/**
 * Wilson score interval of a binomial proportion (Wilson 1927, "Probable inference, the law
 * of succession, and statistical inference", JASA 22:209–212):
 * centre `(p̂ + z²/2n) / (1 + z²/n)`, half-width `z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)`,
 * with `p̂ = wins / n`. With no trials the rate is 0 and the interval [0, 1].
 *
 * @param wins successes, 0 ≤ wins ≤ trials
 * @param trials number of trials
 * @param z normal quantile. @default {@link Z_95}
 * @throws RangeError for counts that are not integers with 0 ≤ wins ≤ trials
 */
export function wilsonInterval(wins: number, trials: number, z: number = Z_95): RateInterval {
  if (!Number.isInteger(wins) || !Number.isInteger(trials) || wins < 0 || trials < 0 || wins > trials) {
    throw new RangeError(`wilsonInterval needs integers 0 ≤ wins ≤ trials, got ${wins}/${trials}`);
  }
  if (trials === 0) return { winRate: 0, low: 0, high: 1 };
  const rate = wins / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (rate + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials));
  // at the edges the formula gives exactly 0 or 1 in exact arithmetic; clamp the rounding
  return { winRate: rate, low: wins === 0 ? 0 : Math.max(0, centre - half), high: wins === trials ? 1 : Math.min(1, centre + half) };
}

/** A difference of two win rates with its 95 % interval. */
export interface RateDifference {
  /** `a.winRate − b.winRate`. */
  readonly difference: number;
  readonly low: number;
  readonly high: number;
}

/**
 * Interval of the difference of two independent proportions by Newcombe's hybrid score method
 * (Newcombe 1998, "Interval estimation for the difference between independent proportions",
 * Statistics in Medicine 17:873–890, method 10), built from the two Wilson intervals:
 * `d = p₁ − p₂`, `low = d − √((p₁ − l₁)² + (u₂ − p₂)²)`, `high = d + √((u₁ − p₁)² + (p₂ − l₂)²)`.
 * Two evaluations of the same items are paired, so this interval is on the wide (conservative) side.
 */
export function newcombeDifference(a: { wins: number; trials: number }, b: { wins: number; trials: number }, z: number = Z_95): RateDifference {
  const first = wilsonInterval(a.wins, a.trials, z);
  const second = wilsonInterval(b.wins, b.trials, z);
  const difference = first.winRate - second.winRate;
  return {
    difference,
    low: difference - Math.hypot(first.winRate - first.low, second.high - second.winRate),
    high: difference + Math.hypot(first.high - first.winRate, second.winRate - second.low),
  };
}
