import { describe, expect, it } from "vitest";
import type { Datum, ForwardBackwardResult } from "../../spec/index.js";
import { correctOffPolicyDatums } from "./off-policy-correction.js";

const PPO = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;

// control-flow tests: a scripted forward() returning fixed learner logprobs stands in for the trainer
const learnerReturning = (logprobs: number[][]) => ({ forward: async (): Promise<ForwardBackwardResult> => ({ datums: logprobs.length, loss: null, logprobs }) });

describe("correctOffPolicyDatums", () => {
  const datum: Datum = { modelInput: [1, 2, 3], targetTokens: [2, 3, 4], logprobs: [0, Math.log(0.5), Math.log(0.1)], advantages: [0, 1, -2], mask: [0, 1, 1] };
  const learner = [-9, Math.log(0.25), Math.log(0.5)]; // ratios 0.5 and 5 (capped at 2)

  it("folds min(π_old/π_sample, C) into policy-token advantages and reports truncation, ratio and KL", async () => {
    const result = await correctOffPolicyDatums(learnerReturning([learner]), [datum], PPO, { cap: 2 });
    expect(result.datums[0]?.advantages[0]).toBe(0);
    expect(result.datums[0]?.advantages[1]).toBeCloseTo(0.5, 10);
    expect(result.datums[0]?.advantages[2]).toBeCloseTo(-4, 10);
    expect(result.policyTokens).toBe(2);
    expect(result.truncatedFraction).toBe(0.5);
    expect(result.meanWeight).toBeCloseTo(1.25, 10);
    expect(result.maxRatio).toBeCloseTo(5, 10);
    // k3 = (r − 1) − log r for r = 0.5 and 5
    expect(result.klEstimate).toBeCloseTo(((0.5 - 1 - Math.log(0.5)) + (5 - 1 - Math.log(5))) / 2, 10);
  });

  it("replaces the sampling logprobs by π_old (0 where masked), so the trainer's ratio starts at 1", async () => {
    const result = await correctOffPolicyDatums(learnerReturning([learner]), [datum], PPO, { cap: 2 });
    expect(result.datums[0]?.logprobs).toEqual([0, learner[1], learner[2]]);
    expect(result.datums[0]?.advantages[2]).toBeCloseTo(-4, 10);
  });

  it("measures no mismatch when the learner agrees with the sampler", async () => {
    const result = await correctOffPolicyDatums(learnerReturning([[...datum.logprobs]]), [datum], PPO);
    expect(result.klEstimate).toBe(0);
    expect(result.maxRatio).toBe(1);
    expect(result.truncatedFraction).toBe(0);
    expect(result.datums[0]?.advantages).toEqual(datum.advantages);
  });

  it("calls no trainer for no datums", async () => {
    const trainer = { forward: async (): Promise<ForwardBackwardResult> => { throw new Error("must not be called"); } };
    expect(await correctOffPolicyDatums(trainer, [], PPO)).toMatchObject({ datums: [], meanWeight: 1, klEstimate: 0 });
  });

  it("rejects learner logprobs of the wrong length", async () => {
    const short: Datum = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, -1], advantages: [0, 1], mask: [0, 1] };
    await expect(correctOffPolicyDatums(learnerReturning([[-1]]), [short], PPO)).rejects.toThrow(/1 old logprobs for 2 target tokens/);
  });
});
