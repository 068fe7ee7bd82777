import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limiter.js";

describe("RateLimiter", () => {
  it("allows a burst, refuses beyond it with the time until the next token, and refills at the rate", () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 10, burst: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take("a").allowed)).toEqual([true, true, true]);
    expect(limiter.take("a")).toEqual({ allowed: false, retryAfterMs: 100 });
    expect(limiter.take("b").allowed).toBe(true); // keys are independent
    now = 100;
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    now = 10_000;
    expect([1, 2, 3, 4].map(() => limiter.take("a").allowed)).toEqual([true, true, true, false]); // refilled to the burst, no more
  });

  it("forgets the least recently used key beyond maxKeys", () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1, now: () => 0, maxKeys: 2 });
    limiter.take("a");
    limiter.take("b");
    limiter.take("c"); // "a" is forgotten: a fresh bucket
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("c").allowed).toBe(false);
  });
});
