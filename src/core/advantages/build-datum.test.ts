import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeAdvantages } from "./compute-advantages.js";
import { buildDatum, buildDatums } from "./build-datum.js";
import { applyImportanceCorrection } from "./off-policy.js";
import type { TokenSegment, TokenTrajectory } from "./trajectory.js";

const conversation: TokenTrajectory = {
  segments: [
    { source: "prompt", tokens: [1, 2] },
    { source: "policy", tokens: [3, 4], logprobs: [-0.1, -0.2] },
    { source: "environment", tokens: [5] },
    { source: "policy", tokens: [6], logprobs: [-0.3] },
  ],
};

describe("buildDatum (Tinker shape)", () => {
  it("shifts targets by one and masks prompt and environment tokens (hand computation)", () => {
    // tokens 1 2 3 4 5 6; targets 2 3 4 5 6 ← policy flags of tokens 2..6: 0 1 1 0 1
    // advantage 0.5 · weight 2 = 1 on policy targets
    expect(buildDatum({ trajectory: conversation, advantage: 0.5, weight: 2 })).toEqual({
      modelInput: [1, 2, 3, 4, 5],
      targetTokens: [2, 3, 4, 5, 6],
      logprobs: [0, -0.1, -0.2, 0, -0.3],
      advantages: [0, 1, 1, 0, 1],
      mask: [0, 1, 1, 0, 1],
    });
  });

  it("never trains on a policy token at position 0 and defaults the weight to 1", () => {
    // tokens 7 8 both policy; only 8 is a target: advantage −0.25 · 1
    expect(buildDatum({ trajectory: { segments: [{ source: "policy", tokens: [7, 8], logprobs: [-1, -2] }] }, advantage: -0.25 })).toEqual({
      modelInput: [7],
      targetTokens: [8],
      logprobs: [-2],
      advantages: [-0.25],
      mask: [1],
    });
  });

  it("throws a typed error for inconsistent trajectories", () => {
    expect(() => buildDatum({ trajectory: { segments: [{ source: "prompt", tokens: [1] }] }, advantage: 1 })).toThrow(
      expect.objectContaining({ code: "training_data_invalid" }),
    );
    expect(() => buildDatum({ trajectory: { segments: [{ source: "policy", tokens: [1, 2], logprobs: [-1] }] }, advantage: 1 })).toThrow(/2 tokens but 1 logprobs/);
    expect(() => buildDatum({ trajectory: conversation, advantage: Number.NaN })).toThrow(/finite/);
  });

  it("builds datums for kept samples only, with role weights, and names samples without tokens", () => {
    const advantages = computeAdvantages([
      { id: "a", reward: 1, group: { role: "solver", environmentId: "e", hint: false, policyVersion: 0 } },
      { id: "b", reward: 0, group: { role: "solver", environmentId: "e", hint: false, policyVersion: 0 } },
      { id: "c", reward: 1, group: { role: "solver", environmentId: "f", hint: false, policyVersion: 0 } },
    ]);
    const { datums, missing, zeroAdvantage } = buildDatums(advantages, new Map([["a", [conversation, conversation]], ["b", []], ["c", [conversation]]]));
    expect(datums.map((entry) => [entry.id, entry.role, entry.datum.advantages])).toEqual([
      ["a", "solver", [0, 0.5, 0.5, 0, 0.5]],
      ["a", "solver", [0, 0.5, 0.5, 0, 0.5]],
    ]);
    expect(missing).toEqual(["b"]);
    expect(zeroAdvantage).toEqual([]);
  });

  it("builds no datum for a kept sample whose advantage is 0, and names it", () => {
    const group = { role: "solver", environmentId: "e", hint: false, policyVersion: 0 } as const;
    const advantages = computeAdvantages([
      { id: "low", reward: 0, group },
      { id: "middle", reward: 0.5, group },
      { id: "high", reward: 1, group },
    ]);
    const { datums, zeroAdvantage } = buildDatums(advantages, new Map(["low", "middle", "high"].map((id) => [id, [conversation]])));
    expect(datums.map((entry) => entry.id)).toEqual(["low", "high"]);
    expect(zeroAdvantage).toEqual(["middle"]);
  });
});

const segment: fc.Arbitrary<TokenSegment> = fc.oneof(
  fc.record({ source: fc.constantFrom("prompt" as const, "environment" as const), tokens: fc.array(fc.nat(50_000), { maxLength: 6 }) }),
  fc
    .array(fc.tuple(fc.nat(50_000), fc.double({ min: -20, max: 0, noNaN: true })), { maxLength: 6 })
    .map((pairs) => ({ source: "policy" as const, tokens: pairs.map(([token]) => token), logprobs: pairs.map(([, logprob]) => logprob) })),
);
const trajectory = fc
  .array(segment, { minLength: 1, maxLength: 8 })
  .filter((segments) => segments.reduce((total, s) => total + s.tokens.length, 0) >= 2)
  .map((segments): TokenTrajectory => ({ segments }));

describe("datum properties", () => {
  it("masked tokens always carry advantage 0, before and after importance correction", () => {
    fc.assert(
      fc.property(
        trajectory,
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        fc.infiniteStream(fc.double({ min: -20, max: 0, noNaN: true })),
        (input, advantage, weight, cap, oldStream) => {
          const datum = buildDatum({ trajectory: input, advantage, weight });
          const lengths = new Set([datum.targetTokens.length, datum.logprobs.length, datum.advantages.length, datum.mask.length, datum.modelInput.length]);
          expect(lengths.size).toBe(1);
          const corrected = applyImportanceCorrection(datum, [...oldStream.take(datum.targetTokens.length)], cap).datum;
          for (const candidate of [datum, corrected]) {
            candidate.mask.forEach((flag, index) => {
              if (flag === 0) {
                expect(candidate.advantages[index]).toBe(0);
                expect(candidate.logprobs[index]).toBe(0);
              }
            });
          }
        },
      ),
    );
  });
});
