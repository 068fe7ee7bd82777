import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { fromPackageDocument } from "../../adapters/package-files/index.js";
import { playEpisode } from "../rollout/index.js";
import { rewardRangeViolation, scriptedPolicy, withSession } from "./probe-episodes.js";

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
    expect(rewardRangeViolation("oracle", [unchecked.value], pkg)).toBeNull();
  }, 30_000);
});
