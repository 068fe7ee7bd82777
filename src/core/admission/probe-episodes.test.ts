import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { fromPackageDocument, loadPackageFolder } from "../../adapters/package-files/index.js";
import { playEpisode } from "../rollout/index.js";
import { invalidStepResult, rewardRangeViolation, scriptedPolicy, withSession } from "./probe-episodes.js";
import { oracleGate } from "./oracle-gate.js";
import { scorerContractGate } from "./scorer-contract-gate.js";
import { parseConfig } from "../../config/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";

// Every gate's episodes check the declared reward range in the sandbox (issue 17, hole 1).

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());
const pkg = fromPackageDocument({
  manifest: {
    schemaVersion: 1,
    name: "pays-too-much",
    title: "Pays 1.5 for a right answer",
    description: "Reply 'yes'; a right reply pays 1.5 in a [0, 1] task.",
    interaction: "single-turn",
    maxTurns: 1,
    rewardRange: [0, 1],
    passThreshold: 1,
    hint: "The answer is a short word of agreement.",
    skills: ["reading"],
    scenario: "a question",
    difficulty: {},
    provenance: { origin: "seed", createdAt: "2026-12-01T00:00:00.000Z" },
  },
  files: {
    "env.py": "class PaysTooMuch:\n    def reset(self, seed):\n        return 'Say yes.'\n    def step(self, action):\n        return ('done', 1.5 if action == 'yes' else 0.0, True, False, {})\n",
    "oracle.py": "def act(env, observation):\n    return 'yes'\n",
  },
});

describe("withSession", () => {
  it("has the sandbox check every step reward against rewardRange, unless told not to", async () => {
    const checked = await withSession(sandbox, pkg, false, (session) => playEpisode(session, pkg.manifest, 0, scriptedPolicy("yes", ["yes"])));
    if (checked.kind !== "ok") throw new Error(checked.message);
    expect(checked.value.failure?.kind).toBe("reward_out_of_range");
    expect(rewardRangeViolation("oracle", [checked.value], pkg)).toMatchObject({ status: "reject", gate: "oracle", reason: "reward_out_of_range", evidence: { seed: 0, turn: 1 } });
    const unchecked = await withSession(sandbox, pkg, false, (session) => playEpisode(session, pkg.manifest, 0, scriptedPolicy("yes", ["yes"])), { checkRewardRange: false });
    if (unchecked.kind !== "ok") throw new Error(unchecked.message);
    expect(unchecked.value.failure).toBeUndefined();
    expect(unchecked.value.turns[0]?.reward).toBe(1.5);
    // unchecked, the step's reward is still in the episode, and its return leaves the range
    expect(rewardRangeViolation("oracle", [unchecked.value], pkg)).toMatchObject({ reason: "reward_out_of_range", evidence: { seed: 0, turn: 1, total: 1.5 } });
  }, 30_000);
});

describe("rewardRangeViolation of a return built from steps in range", () => {
  const episode = (rewards: readonly number[]) => ({
    seed: 3,
    initialObservation: "start",
    turns: rewards.map((reward, index) => ({ action: `move ${index}`, observation: "next", reward })),
    return: 1,
    won: true,
    terminated: true,
    truncated: false,
  });

  it("rejects two steps of 0.6 in a [0, 1] task at the turn the running return left the range, and passes a return that stays in it", () => {
    expect(rewardRangeViolation("oracle", [episode([0.5, 0.5]), episode([0, 0.6, 0.6])], pkg)).toMatchObject({
      status: "reject",
      gate: "oracle",
      reason: "reward_out_of_range",
      evidence: { seed: 3, turn: 3, total: 1.2, rewardRange: [0, 1] },
    });
    expect(rewardRangeViolation("oracle", [episode([0.5, 0.5]), episode([0.3, 0.3, 0.4])], pkg)).toBeNull();
  });

  it("makes the oracle gate reject fixtures/broken-envs/running-return-above-range-on-oracle-path (0.6 then 1.0 on the oracle's path)", async () => {
    const candidate = loadPackageFolder("fixtures/broken-envs/running-return-above-range-on-oracle-path");
    const verdict = await oracleGate().check(candidate, { ...testAdmissionResources(), sandbox, settings: parseConfig({}).admission, pool: [] });
    expect(verdict).toMatchObject({ status: "reject", gate: "oracle", reason: "reward_out_of_range", evidence: { total: 1.6 } });
  }, 30_000);
});

describe("invalidStepResult", () => {
  // hand-written broken program (not model output): the right answer pays 1, a readable wrong one NaN
  const nanOnWrong = fromPackageDocument({
    manifest: { ...pkg.manifest, name: "nan-on-wrong-answer", title: "Pays NaN for a wrong number" },
    files: {
      "env.py": "class NanOnWrong:\n    def reset(self, seed):\n        self.answer = 40 + seed % 5\n        return f'Reply with {self.answer}.'\n    def step(self, action):\n        if action.strip() == str(self.answer):\n            return ('right', 1.0, True, False, {})\n        if action.strip().lstrip('-').isdigit():\n            return ('wrong', float('nan'), True, False, {})\n        return ('unreadable', 0.0, True, False, {'invalid_action': True})\n",
      "oracle.py": "def act(env, observation):\n    return observation.split()[-1].rstrip('.')\n",
    },
  });

  it("turns a protocol_violation on a played path into the gate's invalid_step_result, and lets a clean episode pass", async () => {
    const wrong = await withSession(sandbox, nanOnWrong, false, (session) => playEpisode(session, nanOnWrong.manifest, 0, scriptedPolicy("41", ["41"])));
    if (wrong.kind !== "ok") throw new Error(wrong.message);
    expect(invalidStepResult("scorer-contract", [wrong.value])).toMatchObject({ gate: "scorer-contract", reason: "invalid_step_result", evidence: { seed: 0, turn: 1 } });
    const right = await withSession(sandbox, nanOnWrong, false, (session) => playEpisode(session, nanOnWrong.manifest, 0, scriptedPolicy("40", ["40"])));
    if (right.kind !== "ok") throw new Error(right.message);
    expect(invalidStepResult("scorer-contract", [right.value])).toBeNull();
  });

  it("makes the scorer contract reject a NaN reward behind a perturbed answer", async () => {
    const settings = parseConfig({}).admission;
    const verdict = await scorerContractGate().check(nanOnWrong, { ...testAdmissionResources(), sandbox, settings, pool: [] });
    expect(verdict).toMatchObject({ status: "reject", gate: "scorer-contract", reason: "invalid_step_result" });
  });
});

