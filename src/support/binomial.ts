/**
 * Upper tail of the binomial distribution, P(X ≥ k) for X ~ Binomial(n, p): the exact sum of
 * C(n, i) pⁱ (1 − p)ⁿ⁻ⁱ for i = k … n, the p-value of a one-sided exact binomial test
 * (Clopper and Pearson 1934). Each term comes from the last by the ratio (n − i)/(i + 1) · p/(1 − p),
 * exact for the n of a gate's seeds (at most 72; (1 − p)ⁿ underflows to 0 past about a thousand trials).
 *
 * @param k successes observed; k ≤ 0 gives 1, k > n gives 0
 * @param n trials, a non-negative integer
 * @param p success probability under the null hypothesis, 0 ≤ p ≤ 1
 * @throws RangeError for a non-integer or negative n, or p outside [0, 1]
 */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`binomialUpperTail needs a non-negative integer n, got ${n}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`binomialUpperTail needs 0 <= p <= 1, got ${p}`);
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p === 0) return 0;
  if (p === 1) return 1;
  let term = (1 - p) ** n; // P(X = 0)
  let below = 0;
  for (let i = 0; i < k; i += 1) {
    below += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return Math.min(1, Math.max(0, 1 - below));
}
