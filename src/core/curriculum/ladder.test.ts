import { describe, expect, it } from "vitest";
import { climbLadder, reachesThreshold, startLadder, type LadderOutcome, type LadderRule } from "./ladder.js";

const outcomes = (rung: number, wins: number, losses: number): LadderOutcome[] => [
  ...Array.from({ length: wins }, () => ({ rung, won: true })),
  ...Array.from({ length: losses }, () => ({ rung, won: false })),
];

describe("climbLadder", () => {
  const rule: LadderRule = { threshold: 0.9, minSamples: 10, window: 3 };

  it("follows a hand-worked sequence of batches (RLVE: τ_acc 0.9, 10 samples, d = 3)", () => {
    // batch 1: 6 of 6 at level 0; too few samples to decide
    let step = climbLadder(startLadder(), outcomes(0, 6, 0), rule, 5);
    expect(step).toEqual({ state: { low: 0, high: 0, attempts: 6, wins: 6 }, decided: false, promoted: false });
    // batch 2: 3 of 4 more; 9 of 10 = 0.9 reaches τ_acc: h 0 -> 1, count starts afresh
    step = climbLadder(step.state, outcomes(0, 3, 1), rule, 5);
    expect(step).toEqual({ state: { low: 0, high: 1, attempts: 0, wins: 0 }, decided: true, promoted: true });
    // batch 3: level 0 outcomes no longer count; 8 of 10 at level 1 is below 0.9: decided, not raised
    step = climbLadder(step.state, [...outcomes(0, 5, 0), ...outcomes(1, 8, 2)], rule, 5);
    expect(step).toEqual({ state: { low: 0, high: 1, attempts: 0, wins: 0 }, decided: true, promoted: false });
    // batches 4-6: 10 of 10 at the top each time: h 1 -> 2 -> 3 -> 4, and the window slides to keep 3 levels
    step = climbLadder(step.state, outcomes(1, 10, 0), rule, 5);
    expect(step.state).toEqual({ low: 0, high: 2, attempts: 0, wins: 0 });
    step = climbLadder(step.state, outcomes(2, 10, 0), rule, 5);
    expect(step.state).toEqual({ low: 1, high: 3, attempts: 0, wins: 0 });
    step = climbLadder(step.state, outcomes(3, 12, 0), rule, 5);
    expect(step.state).toEqual({ low: 2, high: 4, attempts: 0, wins: 0 });
    step = climbLadder(step.state, outcomes(4, 10, 0), rule, 5);
    expect(step.state).toEqual({ low: 3, high: 5, attempts: 0, wins: 0 });
    // at the top rung a perfect batch decides but cannot promote
    step = climbLadder(step.state, outcomes(5, 10, 0), rule, 5);
    expect(step).toEqual({ state: { low: 3, high: 5, attempts: 0, wins: 0 }, decided: true, promoted: false });
  });

  it("counts across batches and never decides on a batch with no outcome at the top", () => {
    const state = { low: 0, high: 2, attempts: 10, wins: 10 };
    expect(climbLadder(state, outcomes(1, 4, 0), rule, 5)).toEqual({ state, decided: false, promoted: false });
  });

  it("judges each batch alone with minSamples 1 and keeps one rung with window 1 (the frontier rule, 6/8)", () => {
    const frontier: LadderRule = { threshold: 6 / 8, minSamples: 1, window: 1 };
    let step = climbLadder(startLadder(), outcomes(0, 5, 3), frontier, 3);
    expect(step).toEqual({ state: { low: 0, high: 0, attempts: 0, wins: 0 }, decided: true, promoted: false });
    step = climbLadder(step.state, outcomes(0, 6, 2), frontier, 3);
    expect(step).toEqual({ state: { low: 1, high: 1, attempts: 0, wins: 0 }, decided: true, promoted: true });
    // a probe of 4 rollouts is judged by the same rate: 3 of 4 releases
    step = climbLadder(step.state, outcomes(1, 3, 1), frontier, 3);
    expect(step.state.high).toBe(2);
  });
});

describe("reachesThreshold", () => {
  it("compares rates without floating-point misses and needs at least one attempt", () => {
    expect(reachesThreshold(27, 30, 0.9)).toBe(true);
    expect(reachesThreshold(26, 30, 0.9)).toBe(false);
    expect(reachesThreshold(6, 8, 6 / 8)).toBe(true);
    expect(reachesThreshold(0, 0, 0.5)).toBe(false);
  });
});
