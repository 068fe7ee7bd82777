import { describe, expect, it } from "vitest";
import { newcombeDifference, wilsonInterval } from "./intervals.js";

describe("wilsonInterval (Wilson 1927), against values computed by hand", () => {
  // 5/10: centre 0.5, half-width (1.959964 / 1.384146) · √(0.025 + 3.841459/400) = 1.416009 · 0.186020 = 0.263408
  it("5 of 10", () => {
    const interval = wilsonInterval(5, 10);
    expect(interval.winRate).toBe(0.5);
    expect(interval.low).toBeCloseTo(0.236592, 5);
    expect(interval.high).toBeCloseTo(0.763408, 5);
  });
  // 8/10: centre (0.8 + 0.192073) / 1.384146 = 0.716741, half-width 1.416009 · √(0.016 + 0.009604) = 0.226577
  it("8 of 10", () => {
    const interval = wilsonInterval(8, 10);
    expect(interval.low).toBeCloseTo(0.490164, 5);
    expect(interval.high).toBeCloseTo(0.943318, 5);
  });
  // 0/10: high = 2 · 0.192073 / 1.384146 = 0.277533; 10/10 mirrors it
  it("0 and 10 of 10 touch the edges exactly", () => {
    expect(wilsonInterval(0, 10)).toEqual({ winRate: 0, low: 0, high: expect.closeTo(0.277533, 5) });
    expect(wilsonInterval(10, 10)).toEqual({ winRate: 1, low: expect.closeTo(0.722467, 5), high: 1 });
  });
  it("no trials: rate 0 on [0, 1]; bad counts are a RangeError", () => {
    expect(wilsonInterval(0, 0)).toEqual({ winRate: 0, low: 0, high: 1 });
    expect(() => wilsonInterval(3, 2)).toThrowError(RangeError);
    expect(() => wilsonInterval(1.5, 2)).toThrowError(RangeError);
  });
});

describe("newcombeDifference (Newcombe 1998, method 10)", () => {
  it("reproduces the paper's example (a): 56/70 − 48/80 = 0.2000, interval 0.0524 to 0.3339", () => {
    const difference = newcombeDifference({ wins: 56, trials: 70 }, { wins: 48, trials: 80 });
    expect(difference.difference).toBeCloseTo(0.2, 10);
    expect(difference.low).toBeCloseTo(0.0524, 4);
    expect(difference.high).toBeCloseTo(0.3339, 4);
  });
  it("is antisymmetric", () => {
    const ab = newcombeDifference({ wins: 3, trials: 10 }, { wins: 7, trials: 12 });
    const ba = newcombeDifference({ wins: 7, trials: 12 }, { wins: 3, trials: 10 });
    expect(ab.difference).toBeCloseTo(-ba.difference, 12);
    expect(ab.low).toBeCloseTo(-ba.high, 12);
    expect(ab.high).toBeCloseTo(-ba.low, 12);
  });
});
