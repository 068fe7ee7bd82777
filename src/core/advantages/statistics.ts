/** Arithmetic mean; null for an empty list. */
export function meanOrNull(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((total, value) => total + value, 0) / values.length;
}

/** Population standard deviation (divides by n); null for an empty list. */
export function populationStd(values: readonly number[]): number | null {
  const center = meanOrNull(values);
  if (center === null) return null;
  return Math.sqrt(values.reduce((total, value) => total + (value - center) ** 2, 0) / values.length);
}

/** Linear-interpolated quantile q ∈ [0, 1] of the values; null for an empty list. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below] as number;
  const high = sorted[above] as number;
  return low + (high - low) * (position - below);
}
