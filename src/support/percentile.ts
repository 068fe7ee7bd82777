/**
 * The q-quantile of `values` by the nearest-rank method: the smallest value such
 * that at least a fraction q of the values are at most it (sorted index
 * ⌈q·n⌉ − 1, clamped to the array). Used by the benchmarks for p50/p90/p99.
 *
 * @param values samples, any order (not modified)
 * @param q fraction in [0, 1], e.g. 0.5 for the median
 * @returns the quantile, or NaN when `values` is empty
 */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
