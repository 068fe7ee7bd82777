import { describe, expect, it } from "vitest";
import { percentile } from "./percentile.js";

describe("percentile (nearest rank)", () => {
  it("picks the ⌈q·n⌉-th smallest value, in any input order", () => {
    const samples = Array.from({ length: 100 }, (_, index) => 100 - index); // 100 … 1
    expect(percentile(samples, 0.5)).toBe(50);
    expect(percentile(samples, 0.9)).toBe(90);
    expect(percentile(samples, 0.99)).toBe(99);
    expect(percentile(samples, 1)).toBe(100);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([3, 1, 2], 0.5)).toBe(2);
  });

  it("is NaN for no samples", () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});
