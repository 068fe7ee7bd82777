import { describe, expect, it } from "vitest";
import { computeAdvantages } from "./compute-advantages.js";
import { stepDiagnostics, summarize } from "./diagnostics.js";

describe("stepDiagnostics", () => {
  it("reports per-role statistics as a plain object (hand computation)", () => {
    const advantages = computeAdvantages([
      { id: "s0", reward: 1, group: { role: "solver", environmentId: "e", hint: false, policyVersion: 0 } },
      { id: "s1", reward: 0, group: { role: "solver", environmentId: "e", hint: false, policyVersion: 0 } },
      { id: "s2", reward: 1, group: { role: "solver", environmentId: "e", hint: true, policyVersion: 0 } },
      { id: "d0", reward: 0.5, group: { role: "designer", promptHash: "p", skillGroup: "g" } },
      { id: "d1", reward: -1, group: { role: "designer", promptHash: "p", skillGroup: "g" } },
    ]);
    const diagnostics = stepDiagnostics({
      step: 3,
      advantages,
      datums: [
        { id: "s0", role: "solver", datum: { modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [0, -1, -1, 0], advantages: [0, 0.5, 0.5, 0], mask: [0, 1, 1, 0] } },
        {
          id: "d0",
          role: "designer",
          datum: { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [-1, -1], advantages: [1.5, 0.375], mask: [1, 1] },
          importance: { weights: [2, 0.5], truncated: [true, false] },
        },
      ],
      designs: [
        { kind: "admitted", regret: 0.1, winRateNoHint: 0.5, winRateHint: 0.75 },
        { kind: "admitted", regret: 0.3, winRateNoHint: 0.25, winRateHint: 0.5 },
        { kind: "failed", failure: "unparseable" },
        { kind: "failed", failure: "review_reject" },
        { kind: "ignored" },
      ],
      missing: ["s1", "s2"],
      zeroAdvantage: ["d1"],
    });
    expect(diagnostics).toEqual({
      step: 3,
      solver: {
        samples: 3,
        rewardMean: expect.closeTo(2 / 3, 12), //            (1 + 0 + 1)/3
        rewardStd: expect.closeTo(Math.sqrt(2) / 3, 12), //  √(((1/3)² + (2/3)² + (1/3)²)/3) = √(6/27) = √2/3
        advantageMean: 0, //             kept: ±0.5 (the hint group [1] is dropped)
        advantageStd: 0.5,
        groupsKept: 1,
        groupsDropped: 1,
        lossWeight: 1,
        datums: 1,
        samplesWithoutTokens: 1, //      s1 (s2's group was dropped, so it is not kept)
        zeroAdvantageSamples: 0,
        maskedTokenFraction: 0.5, //     2 of 4 targets masked
        importanceWeightMean: 1, //      on-policy: weight 1
        importanceWeightMax: 1,
        importanceTruncatedFraction: 0,
      },
      designer: {
        samples: 2,
        rewardMean: -0.25, //            (0.5 − 1)/2
        rewardStd: 0.75,
        advantageMean: 0, //             ±0.75
        advantageStd: 0.75,
        groupsKept: 1,
        groupsDropped: 0,
        lossWeight: 1, //                kept 2 solver vs 2 designer: balanced
        datums: 1,
        samplesWithoutTokens: 0,
        zeroAdvantageSamples: 1,
        maskedTokenFraction: 0,
        importanceWeightMean: 1.25, //   (2 + 0.5)/2
        importanceWeightMax: 2,
        importanceTruncatedFraction: 0.5,
        regret: { count: 2, mean: 0.2, std: expect.closeTo(0.1, 12), min: 0.1, p25: 0.15, median: 0.2, p75: 0.25, max: 0.3 },
        winRateNoHint: 0.375,
        winRateHint: 0.625,
        admissionFunnel: { designs: 5, ignored: 1, unparseable: 1, mechanicalReject: 0, reviewReject: 1, admitted: 2 },
      },
    });
    expect(JSON.parse(JSON.stringify(diagnostics))).toEqual(diagnostics);
  });

  it("uses nulls for empty statistics", () => {
    const diagnostics = stepDiagnostics({ step: 0, advantages: computeAdvantages([]), datums: [] });
    expect(diagnostics.designer).toMatchObject({ samples: 0, rewardMean: null, maskedTokenFraction: null, importanceWeightMax: null, winRateHint: null });
    expect(summarize([])).toEqual({ count: 0, mean: null, std: null, min: null, p25: null, median: null, p75: null, max: null });
  });
});
