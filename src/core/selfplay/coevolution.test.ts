import { describe, expect, it } from "vitest";
import type { Datum, ForwardBackwardResult } from "../../spec/index.js";
import { correctDelayedDatums, planStep, scheduleDesignerDatums } from "./coevolution.js";

const PPO = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;

describe("planStep", () => {
  it("updates the Solver every step and the Designer every k steps, delayed by d", () => {
    const plans = [1, 2, 3, 4, 5, 6, 7].map((step) => planStep(step, { designerEvery: 3, designerDelay: 1 }));
    expect(plans.map((plan) => plan.solverUpdate)).toEqual(Array(7).fill(true));
    expect(plans.map((plan) => plan.designerGenerates)).toEqual([true, false, false, true, false, false, true]);
    expect(plans.map((plan) => plan.designerUpdateOf)).toEqual([null, 1, null, null, 4, null, null]);
  });

  it("trains on the same step's designs when the delay is 0, and rejects bad input", () => {
    expect(planStep(5, { designerEvery: 4, designerDelay: 0 }).designerUpdateOf).toBe(5);
    expect(() => planStep(0, { designerEvery: 4, designerDelay: 1 })).toThrow(RangeError);
    expect(() => planStep(1, { designerEvery: 0, designerDelay: 1 })).toThrow(RangeError);
  });
});

describe("scheduleDesignerDatums", () => {
  it("holds generated datums until their update step, as plain data", () => {
    const datum: Datum = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, -1], advantages: [0, 1], mask: [0, 1] };
    const schedule = { designerEvery: 2, designerDelay: 1 };
    const first = scheduleDesignerDatums({}, planStep(1, schedule), [datum]);
    expect(first.due).toEqual([]);
    expect(JSON.parse(JSON.stringify(first.pending))).toEqual({ "1": [datum] });
    const second = scheduleDesignerDatums(first.pending, planStep(2, schedule), []);
    expect(second.due).toEqual([datum]);
    expect(second.pending).toEqual({});
  });
});

describe("correctDelayedDatums", () => {
  // control-flow test: a scripted forward() returning fixed learner logprobs stands in for the trainer
  it("folds min(π_old/π_sample, C) into policy-token advantages and reports truncation", async () => {
    const datum: Datum = { modelInput: [1, 2, 3], targetTokens: [2, 3, 4], logprobs: [0, Math.log(0.5), Math.log(0.1)], advantages: [0, 1, -2], mask: [0, 1, 1] };
    const learner = [-9, Math.log(0.25), Math.log(0.5)]; // ratios 0.5 and 5 (capped at 2)
    const trainer = { forward: async (): Promise<ForwardBackwardResult> => ({ datums: 1, loss: null, logprobs: [learner] }) };
    const result = await correctDelayedDatums(trainer, [datum], PPO, 2);
    expect(result.datums[0]?.advantages[0]).toBe(0);
    expect(result.datums[0]?.advantages[1]).toBeCloseTo(0.5, 10);
    expect(result.datums[0]?.advantages[2]).toBeCloseTo(-4, 10);
    expect(result.truncatedFraction).toBe(0.5);
    expect(result.meanWeight).toBeCloseTo(1.25, 10);
  });

  it("rejects learner logprobs of the wrong length", async () => {
    const datum: Datum = { modelInput: [1, 2], targetTokens: [2, 3], logprobs: [0, -1], advantages: [0, 1], mask: [0, 1] };
    const trainer = { forward: async (): Promise<ForwardBackwardResult> => ({ datums: 1, loss: null, logprobs: [[-1]] }) };
    await expect(correctDelayedDatums(trainer, [datum], PPO)).rejects.toThrow(/1 old logprobs for 2 target tokens/);
  });
});
