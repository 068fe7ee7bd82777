import { describe, expect, it } from "vitest";
import { binomialUpperTail } from "./binomial.js";

describe("binomialUpperTail", () => {
  it("matches hand-worked tails", () => {
    // 1 − 0.95¹⁶ − 16·0.05·0.95¹⁵
    expect(binomialUpperTail(2, 16, 0.05)).toBeCloseTo(1 - 0.95 ** 16 - 16 * 0.05 * 0.95 ** 15, 12);
    expect(binomialUpperTail(2, 16, 0.05)).toBeCloseTo(0.1892, 4);
    expect(binomialUpperTail(3, 8, 0.1)).toBeCloseTo(0.0381, 4);
    expect(binomialUpperTail(16, 16, 0.5)).toBeCloseTo(0.5 ** 16, 15);
  });

  it("handles the edges", () => {
    expect(binomialUpperTail(0, 10, 0.3)).toBe(1);
    expect(binomialUpperTail(11, 10, 0.3)).toBe(0);
    expect(binomialUpperTail(1, 10, 0)).toBe(0);
    expect(binomialUpperTail(10, 10, 1)).toBe(1);
  });

  it("refuses a bad n or p", () => {
    expect(() => binomialUpperTail(1, -1, 0.5)).toThrow(RangeError);
    expect(() => binomialUpperTail(1, 2.5, 0.5)).toThrow(RangeError);
    expect(() => binomialUpperTail(1, 10, 1.5)).toThrow(RangeError);
    expect(() => binomialUpperTail(1, 10, Number.NaN)).toThrow(RangeError);
  });
});
