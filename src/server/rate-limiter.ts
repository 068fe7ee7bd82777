/** Options of a {@link RateLimiter}. */
export interface RateLimiterOptions {
  /** Sustained requests per second per key. */
  readonly perSecond: number;
  /** Requests allowed at once after an idle spell (the bucket size). */
  readonly burst: number;
  /** Milliseconds since some epoch (injected for tests). */
  readonly now: () => number;
  /** Keys tracked at once; the least recently used is forgotten beyond it (its bucket refills). @default 10000 */
  readonly maxKeys?: number;
}

/** Whether a request may go ahead, and if not, how long to wait. */
export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number };

/**
 * A token bucket per key (a bearer token, or a client address without tokens): `burst`
 * requests at once, refilled at `perSecond`. Pure apart from the injected clock.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxKeys: number;

  constructor(private readonly options: RateLimiterOptions) {
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Takes one request's worth from `key`'s bucket when it has it. */
  take(key: string): RateDecision {
    const now = this.options.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, at: now };
    this.buckets.delete(key); // re-inserted last: the map's order is least recently used first
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.options.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / this.options.perSecond) * 1000) };
  }
}
