import { describe, expect, it } from "vitest";
import { DEFAULT_DESIGNER_REWARD_SETTINGS, scoreDesign } from "./designer-reward-modes.js";
import { EMPTY_LEARNING_POTENTIAL, learningPotential, type LearningPotentialState } from "./learning-potential.js";

describe("learning potential golden table (|fast EMA − slow EMA|, rates 0.5 / 0.1)", () => {
  it("walks one skill through three pass rates", () => {
    let state: LearningPotentialState = EMPTY_LEARNING_POTENTIAL;
    const rows: [number, number, number, number][] = [
      // [pass rate, fast, slow, reward]
      [0.2, 0.2, 0.2, 0], //       first sight: both EMAs start at 0.2 → |0.2 − 0.2| = 0
      [0.6, 0.4, 0.24, 0.16], //   fast 0.2 + 0.5·0.4 = 0.4; slow 0.2 + 0.1·0.4 = 0.24 → 0.16
      [0.6, 0.5, 0.276, 0.224], // fast 0.4 + 0.5·0.2 = 0.5; slow 0.24 + 0.1·0.36 = 0.276 → 0.224
    ];
    for (const [passRate, fast, slow, reward] of rows) {
      const result = learningPotential(state, ["graphs"], passRate);
      expect(result.reward).toBeCloseTo(reward, 12);
      expect(result.state.graphs?.fast).toBeCloseTo(fast, 12);
      expect(result.state.graphs?.slow).toBeCloseTo(slow, 12);
      state = result.state;
    }
    expect(state.graphs?.observations).toBe(3);
  });

  it("averages over the environment's skills, counting a new skill as 0", () => {
    const state: LearningPotentialState = { a: { fast: 0.4, slow: 0.24, observations: 2 } };
    // a: fast 0.4 + 0.5·(0 − 0.4) = 0.2; slow 0.24 + 0.1·(0 − 0.24) = 0.216 → 0.016; b new → 0; mean 0.008
    const result = learningPotential(state, ["a", "b", "a"], 0);
    expect(result.reward).toBeCloseTo(0.008, 12);
    expect(Object.keys(result.state).sort()).toEqual(["a", "b"]);
    expect(state.a).toEqual({ fast: 0.4, slow: 0.24, observations: 2 }); // input not mutated
    expect(learningPotential(state, [], 0.5)).toEqual({ reward: 0, state });
  });

  it("threads the state through scoreDesign in learning-potential mode only", () => {
    const settings = { ...DEFAULT_DESIGNER_REWARD_SETTINGS, mode: "learning-potential" as const };
    const first = scoreDesign({ kind: "admitted", calibration: { regret: 0, winRateNoHint: 0.2, skills: ["x"] } }, settings);
    const second = scoreDesign({ kind: "admitted", calibration: { regret: 0, winRateNoHint: 0.6, skills: ["x"] } }, settings, first.state);
    expect(second.reward).toBeCloseTo(0.16, 12);
    const blend = scoreDesign({ kind: "admitted", calibration: { regret: 0, winRateNoHint: 0.5, skills: ["x"] } }, DEFAULT_DESIGNER_REWARD_SETTINGS, first.state);
    expect(blend.state).toBe(first.state);
  });
});
