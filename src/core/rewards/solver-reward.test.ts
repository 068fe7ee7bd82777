import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import type { Episode } from "../../spec/index.js";
import { DEFAULT_SOLVER_REWARD, solverReward, solverRewardOfEpisode, type SolverRewardInput } from "./solver-reward.js";

const penalties = { invalidActionPenalty: -0.1, sandboxCutPenalty: -1 };

describe("Solver reward golden table (clip(Σ r, range) + penalties)", () => {
  it.each<[string, SolverRewardInput, typeof DEFAULT_SOLVER_REWARD, number]>([
    ["sum inside range", { stepRewards: [0.3, 0.4], rewardRange: [0, 1] }, DEFAULT_SOLVER_REWARD, 0.7], //      0.3 + 0.4 = 0.7
    ["clipped high", { stepRewards: [1, 1], rewardRange: [0, 1] }, DEFAULT_SOLVER_REWARD, 1], //                 2 → min(1, 2) = 1
    ["clipped low", { stepRewards: [-2], rewardRange: [-1, 1] }, DEFAULT_SOLVER_REWARD, -1], //                  −2 → max(−1, −2) = −1
    ["no steps", { stepRewards: [], rewardRange: [0, 1] }, DEFAULT_SOLVER_REWARD, 0], //                         0
    ["invalid actions", { stepRewards: [0.5], rewardRange: [0, 1], invalidActions: 2 }, penalties, 0.3], //      0.5 − 0.1·2 = 0.3
    ["sandbox timeout", { stepRewards: [0.5], rewardRange: [0, 1], failure: { kind: "timeout", message: "" } }, penalties, -0.5], // 0.5 − 1
    ["policy error is no sandbox cut", { stepRewards: [0.5], rewardRange: [0, 1], failure: { kind: "policy_error", message: "" } }, penalties, 0.5], // 0.5
    ["both, after clipping", { stepRewards: [2], rewardRange: [0, 1], invalidActions: 1, failure: { kind: "crash", message: "" } }, { invalidActionPenalty: -0.25, sandboxCutPenalty: -0.5 }, 0.25], // min(1,2) − 0.25 − 0.5
    ["defaults: 0.02 per invalid action, no sandbox penalty", { stepRewards: [0.5], rewardRange: [0, 1], invalidActions: 3, failure: { kind: "memory_limit", message: "" } }, DEFAULT_SOLVER_REWARD, 0.44], // 0.5 − 0.02·3 + 0
  ])("%s", (_name, input, params, expected) => {
    expect(solverReward(input, params).reward).toBeCloseTo(expected, 12);
  });

  it("scores a played episode and reports the parts", () => {
    const episode: Episode = {
      seed: 1,
      initialObservation: "",
      turns: [
        { action: "a", observation: "o", reward: 0.25, invalidAction: true },
        { action: "b", observation: "o", reward: 0.5 },
      ],
      return: 0.75,
      won: false,
      terminated: false,
      truncated: true,
      failure: { kind: "cpu_limit", message: "slow" },
    };
    expect(solverRewardOfEpisode(episode, [0, 1], penalties)).toEqual({
      reward: expect.closeTo(-0.35, 12), // 0.75 − 0.1·1 (the marked turn) − 1 = −0.35
      clippedReturn: 0.75,
      penalty: expect.closeTo(-1.1, 12),
      cutBySandbox: true,
    });
    // the reward config block satisfies SolverRewardParams structurally; by default an invalid action costs 0.02 and a sandbox cut nothing
    expect(solverRewardOfEpisode(episode, [0, 1], parseConfig({}).reward).reward).toBeCloseTo(0.73, 12); // 0.75 − 0.02
    // the function's default parameters are the config's defaults
    expect(parseConfig({}).reward).toMatchObject(DEFAULT_SOLVER_REWARD);
  });

  it("counts every turn the environment marked invalid, and only those", () => {
    const turn = (invalid: boolean) => ({ action: "x", observation: "o", reward: 0, ...(invalid ? { invalidAction: true as const } : {}) });
    const episode = (marks: readonly boolean[]): Episode => ({ seed: 0, initialObservation: "", turns: marks.map(turn), return: 0, won: false, terminated: false, truncated: true });
    const params = { invalidActionPenalty: -0.02, sandboxCutPenalty: 0 };
    expect(solverRewardOfEpisode(episode([true, false, true]), [0, 1], params).penalty).toBeCloseTo(-0.04, 12);
    expect(solverRewardOfEpisode(episode([false, false]), [0, 1], params).penalty).toBe(0);
    expect(solverRewardOfEpisode(episode([]), [0, 1], params).reward).toBe(0);
  });
});
