import { describe, expect, it } from "vitest";
import type { Datum } from "../../spec/index.js";
import { planStep, scheduleDesignerDatums } from "./coevolution.js";


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
