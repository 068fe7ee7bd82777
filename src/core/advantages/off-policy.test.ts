import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { DEFAULT_LOSS_CONFIG, applyImportanceCorrection, lossConfig, truncatedImportanceWeights } from "./off-policy.js";

describe("truncated importance weights golden table (min(π_old/π_sample, C))", () => {
  // [log π_old, log π_sample, C, expected]
  it.each([
    [-1, -1, 2, 1], //                        exp(0) = 1
    [Math.log(0.3), Math.log(0.1), 2, 2], //  0.3/0.1 = 3 → truncated at C = 2
    [Math.log(0.1), Math.log(0.2), 2, 0.5], // 0.1/0.2 = 0.5 (down-weights; never truncated below)
    [Math.log(0.3), Math.log(0.2), 2, 1.5], // 0.3/0.2 = 1.5 < 2
    [Math.log(0.3), Math.log(0.1), 5, 3], //  3 < C = 5
    [0, Math.log(0.25), 2, 2], //             1/0.25 = 4 → 2
  ])("old %f, sample %f, C %f → %f", (old, sampled, cap, expected) => {
    expect(truncatedImportanceWeights([old], [sampled], cap)[0]).toBeCloseTo(expected, 12);
  });

  it("folds weights into policy-token advantages only and flags truncation", () => {
    const datum = { modelInput: [1, 2, 3], targetTokens: [2, 3, 4], logprobs: [0, Math.log(0.1), Math.log(0.2)], advantages: [0, 0.5, 0.5], mask: [0, 1, 1] };
    // token 0 masked: weight 1, advantage 0; token 1: 0.3/0.1 = 3 → 2, 0.5·2 = 1; token 2: 0.1/0.2 = 0.5, 0.5·0.5 = 0.25
    const corrected = applyImportanceCorrection(datum, [-7, Math.log(0.3), Math.log(0.1)]);
    expect(corrected.weights.map((w) => Number(w.toFixed(12)))).toEqual([1, 2, 0.5]);
    expect(corrected.truncated).toEqual([false, true, false]);
    expect(corrected.datum.advantages.map((a) => Number(a.toFixed(12)))).toEqual([0, 1, 0.25]);
    expect(corrected.datum.logprobs).toBe(datum.logprobs);
    expect(() => applyImportanceCorrection(datum, [0])).toThrow(expect.objectContaining({ code: "training_data_invalid" }));
    expect(() => truncatedImportanceWeights([0], [0], 0)).toThrow(/positive/);
  });

  it("never exceeds C", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -30, max: 0, noNaN: true }), fc.double({ min: -30, max: 0, noNaN: true })), { maxLength: 50 }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        (pairs, cap) => {
          const weights = truncatedImportanceWeights(pairs.map(([old]) => old), pairs.map(([, sampled]) => sampled), cap);
          expect(weights.every((weight) => weight >= 0 && weight <= cap)).toBe(true);
        },
      ),
    );
  });
});

describe("loss config", () => {
  it("defaults to PPO with clip 0.2 / 0.28 and reads the advantages config block", () => {
    expect(DEFAULT_LOSS_CONFIG).toEqual({ kind: "ppo", clipLow: 0.2, clipHigh: 0.28 });
    expect(lossConfig(parseConfig({}).advantages)).toEqual(DEFAULT_LOSS_CONFIG);
    expect(lossConfig(parseConfig({ advantages: { lossKind: "importance_sampling", clipHigh: 0.3 } }).advantages)).toEqual({
      kind: "importance_sampling",
      clipLow: 0.2,
      clipHigh: 0.3,
    });
    expect(parseConfig({}).advantages.importanceCap).toBe(2);
  });
});
