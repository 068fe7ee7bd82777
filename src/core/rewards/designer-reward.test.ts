import { describe, expect, it } from "vitest";
import { DEFAULT_DESIGNER_REWARD, designerReward, difficultyAnchor, hintRegret } from "./designer-reward.js";

describe("SPADE designer reward", () => {
  it("floors regret at zero and ignores empty groups", () => {
    expect(hintRegret([1, 0], [0, 0])).toBeCloseTo(0.5);
    expect(hintRegret([0, 0], [1, 1])).toBe(0);
    expect(hintRegret([], [1])).toBe(0);
  });

  it("has a flat top on [0.4, 0.6] and decays linearly over 0.25", () => {
    expect(difficultyAnchor(0.4)).toBe(1);
    expect(difficultyAnchor(0.5)).toBe(1);
    expect(difficultyAnchor(0.6)).toBe(1);
    expect(difficultyAnchor(0.275)).toBeCloseTo(0.5);
    expect(difficultyAnchor(0.725)).toBeCloseTo(0.5);
    expect(difficultyAnchor(0.1)).toBe(0);
    expect(difficultyAnchor(1)).toBe(0);
  });

  it("blends 0.4 · min(regret/0.15, 1) + 0.6 · anchor (hand computation)", () => {
    // regret 0.075 → norm 0.5; w = 0.725 → anchor 0.5; 0.4·0.5 + 0.6·0.5 = 0.5
    expect(designerReward(0.075, 0.725)).toBeCloseTo(0.5);
    // saturated regret, w in the flat top → 1
    expect(designerReward(0.9, 0.5)).toBeCloseTo(1);
    // never solved without hint, no regret → 0
    expect(designerReward(0, 0)).toBe(0);
    // every constant configurable
    expect(designerReward(0.1, 0.5, { ...DEFAULT_DESIGNER_REWARD, regretScale: 0.2, regretWeight: 1, anchorWeight: 0 })).toBeCloseTo(0.5);
  });
});
