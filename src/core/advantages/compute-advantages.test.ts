import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { DEFAULT_ADVANTAGE_OPTIONS, computeAdvantages, roleWeights, type AdvantageSample } from "./compute-advantages.js";
import { groupKeyString, type GroupKey } from "./group-key.js";

const solver = (environmentId: string, hint = false, policyVersion = 0): GroupKey => ({ role: "solver", environmentId, hint, policyVersion });
const designer = (promptHash: string, skillGroup = "s"): GroupKey => ({ role: "designer", promptHash, skillGroup });
const samples = (group: GroupKey, rewards: readonly number[], prefix = "x"): AdvantageSample[] =>
  rewards.map((reward, index) => ({ id: `${prefix}${index}`, reward, group }));
const advantagesOf = (rewards: readonly number[], scaleByStd = false, stdEpsilon = 0) =>
  computeAdvantages(samples(solver("e"), rewards), { ...DEFAULT_ADVANTAGE_OPTIONS, scaleByStd, stdEpsilon }).samples.map((s) => s.advantage);

describe("computeAdvantages golden table (A = r − mean(group), optional /(std + ε))", () => {
  // [rewards of one group, scaleByStd, ε, expected advantages]
  it.each<[number[], boolean, number, number[]]>([
    [[1, 0], false, 0, [0.5, -0.5]], //                       mean 0.5 → 1 − 0.5, 0 − 0.5
    [[1, 0, 0, 0], false, 0, [0.75, -0.25, -0.25, -0.25]], // mean 0.25
    [[0.2, 0.4, 0.9], false, 0, [-0.3, -0.1, 0.4]], //        mean 1.5/3 = 0.5
    [[-1, -0.5], false, 0, [-0.25, 0.25]], //                 mean −0.75
    [[0.5], false, 0, [0]], //                                single-sample group: constant, dropped → 0
    [[1, 1, 1], false, 0, [0, 0, 0]], //                      all equal: dropped → 0
    [[0, 0, 0, 0], true, 1e-6, [0, 0, 0, 0]], //              all equal with scaling: dropped, no 0/ε blow-up
    [[1, 0], true, 0, [1, -1]], //                            mean 0.5, std 0.5 → ±0.5/0.5
    [[1, 0, 0, 0], true, 0, [Math.sqrt(3), -1 / Math.sqrt(3), -1 / Math.sqrt(3), -1 / Math.sqrt(3)]], // std √(0.75/4) = √3/4: 0.75/(√3/4) = √3; −0.25/(√3/4) = −1/√3
    [[1, 0], true, 0.5, [0.5, -0.5]], //                      std 0.5 + ε 0.5 = 1 → ±0.5/1
    [[3, 1, 2], true, 0, [Math.sqrt(1.5), -Math.sqrt(1.5), 0]], // mean 2, std √(2/3): ±1/√(2/3) = ±√1.5
  ])("rewards %j, scale %s, ε %f → %j", (rewards, scale, epsilon, expected) => {
    const actual = advantagesOf(rewards, scale, epsilon);
    expected.forEach((value, index) => expect(actual[index]).toBeCloseTo(value, 12));
  });

  it("never mixes roles, hint conditions or policy versions", () => {
    const result = computeAdvantages([
      ...samples(solver("e", false), [0, 1], "a"), //   no-hint group: mean 0.5 → −0.5, 0.5
      ...samples(solver("e", true), [1, 1], "b"), //    hint group: constant → dropped
      ...samples(solver("e", false, 1), [1, 0, 0, 0], "c"), // version 1: mean 0.25
      ...samples(designer("e"), [1, 0], "d"), //        a designer group named like the env: its own group
    ]);
    expect(result.samples.map((s) => s.advantage)).toEqual([-0.5, 0.5, 0, 0, 0.75, -0.25, -0.25, -0.25, 0.5, -0.5]);
    expect(result.groupsKept).toEqual({ solver: 2, designer: 1 });
    expect(result.groupsDropped).toEqual({ solver: 1, designer: 0 });
    expect(result.samplesKept).toEqual({ solver: 6, designer: 2 });
    // designer is rarer: min(50, 6/2) = 3
    expect(result.weights).toEqual({ solver: 1, designer: 3 });
    expect(result.samples.filter((s) => s.role === "designer").every((s) => s.weight === 3)).toBe(true);
  });

  it("groups Designer samples by prompt or by skill group", () => {
    const input = [...samples(designer("p1", "graphs"), [1], "a"), ...samples(designer("p2", "graphs"), [0], "b")];
    // by prompt: two single-sample groups, both dropped
    expect(computeAdvantages(input).groupsDropped.designer).toBe(2);
    // by skill: one group [1, 0], mean 0.5 → ±0.5
    const bySkill = computeAdvantages(input, { ...DEFAULT_ADVANTAGE_OPTIONS, designerGroupBy: "skill" });
    expect(bySkill.samples.map((s) => s.advantage)).toEqual([0.5, -0.5]);
    expect(groupKeyString(designer("p1", "graphs"), "skill")).not.toBe(groupKeyString(designer("p1", "graphs"), "prompt"));
  });

  it.each([
    [{ solver: 64, designer: 2 }, 50, { solver: 1, designer: 32 }], //   64/2 = 32 < 50
    [{ solver: 200, designer: 2 }, 50, { solver: 1, designer: 50 }], //  200/2 = 100, capped at 50
    [{ solver: 32, designer: 0 }, 50, { solver: 1, designer: 1 }], //    no kept designs: no up-weighting
    [{ solver: 3, designer: 12 }, 50, { solver: 4, designer: 1 }], //    solver rarer: 12/3 = 4
    [{ solver: 5, designer: 5 }, 50, { solver: 1, designer: 1 }], //     balanced
  ])("role weights %j, cap %d → %j", (kept, cap, expected) => {
    expect(roleWeights(kept, cap)).toEqual(expected);
  });

  it("rejects non-finite rewards and takes its defaults from the advantages config block", () => {
    expect(() => computeAdvantages(samples(solver("e"), [Number.NaN]))).toThrow(/non-finite/);
    const config = parseConfig({}).advantages;
    expect({ scaleByStd: config.scaleByStd, stdEpsilon: config.stdEpsilon, designerGroupBy: config.designerGroupBy, designerWeightCap: config.designerWeightCap }).toEqual(
      DEFAULT_ADVANTAGE_OPTIONS,
    );
  });
});

// Rewards are multiples of 1/8 in [−8, 8] so sums and shifts are exact in floating point.
const reward = fc.integer({ min: -64, max: 64 }).map((n) => n / 8);
const groupedSamples = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean(), reward), { minLength: 1, maxLength: 40 })
  .map((rows) =>
    rows.map(([group, isDesigner, value], index): AdvantageSample => ({
      id: `s${index}`,
      reward: value,
      group: isDesigner ? designer(`p${group}`) : solver(`e${group}`, group % 2 === 0),
    })),
  );
const options = fc.record({
  scaleByStd: fc.boolean(),
  stdEpsilon: fc.constantFrom(1e-6, 1e-3, 0.1),
  designerGroupBy: fc.constantFrom("prompt" as const, "skill" as const),
  designerWeightCap: fc.constantFrom(1, 10, 50),
});

describe("computeAdvantages properties", () => {
  it("advantages sum to zero in every kept group", () => {
    fc.assert(
      fc.property(groupedSamples, options, (input, opts) => {
        const result = computeAdvantages(input, opts);
        for (const group of result.groups.filter((g) => g.kept)) {
          const sum = result.samples.filter((s) => s.groupKey === group.key).reduce((total, s) => total + s.advantage, 0);
          expect(Math.abs(sum)).toBeLessThan(1e-9);
        }
      }),
    );
  });

  it("adding a constant to every reward of a group leaves its advantages unchanged", () => {
    fc.assert(
      fc.property(groupedSamples, options, reward, (input, opts, shift) => {
        const before = computeAdvantages(input, opts);
        const target = before.samples[0]?.groupKey;
        const shifted = input.map((s, index) => (before.samples[index]?.groupKey === target ? { ...s, reward: s.reward + shift } : s));
        const after = computeAdvantages(shifted, opts);
        after.samples.forEach((s, index) => {
          expect(s.kept).toBe(before.samples[index]?.kept);
          expect(s.advantage).toBeCloseTo(before.samples[index]?.advantage as number, 9);
        });
      }),
    );
  });

  it("scaling rewards by k scales unscaled advantages by k", () => {
    fc.assert(
      fc.property(groupedSamples, fc.constantFrom(-3, -0.5, 0.25, 2, 7), (input, k) => {
        const opts = { ...DEFAULT_ADVANTAGE_OPTIONS, scaleByStd: false };
        const before = computeAdvantages(input, opts);
        const after = computeAdvantages(
          input.map((s) => ({ ...s, reward: s.reward * k })),
          opts,
        );
        after.samples.forEach((s, index) => expect(s.advantage).toBeCloseTo(k * (before.samples[index]?.advantage as number), 9));
      }),
    );
  });

  it("drops exactly the groups whose rewards are all equal, and counts them", () => {
    fc.assert(
      fc.property(groupedSamples, options, (input, opts) => {
        const result = computeAdvantages(input, opts);
        const rewardsByKey = new Map<string, number[]>();
        input.forEach((s) => {
          const key = groupKeyString(s.group, opts.designerGroupBy);
          rewardsByKey.set(key, [...(rewardsByKey.get(key) ?? []), s.reward]);
        });
        expect(result.groups.length).toBe(rewardsByKey.size);
        for (const group of result.groups) {
          const rewards = rewardsByKey.get(group.key) as number[];
          expect(group.kept).toBe(new Set(rewards).size > 1);
        }
        const dropped = result.groups.filter((g) => !g.kept);
        expect(result.groupsDropped.solver + result.groupsDropped.designer).toBe(dropped.length);
        expect(result.samples.filter((s) => !s.kept).every((s) => s.advantage === 0)).toBe(true);
      }),
    );
  });

  it("never puts two roles in one group", () => {
    fc.assert(
      fc.property(groupedSamples, options, (input, opts) => {
        const result = computeAdvantages(input, opts);
        result.samples.forEach((s, index) => expect(s.role).toBe(input[index]?.group.role));
        for (const group of result.groups) expect(result.samples.filter((s) => s.groupKey === group.key).every((s) => s.role === group.role)).toBe(true);
      }),
    );
  });
});
