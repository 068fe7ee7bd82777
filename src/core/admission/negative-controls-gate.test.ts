import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { testPackage } from "../../testing/serve-fixtures.js";
import type { AdmissionContext } from "./gate.js";
import { negativeControlsGate } from "./negative-controls-gate.js";

/**
 * A task whose answer is `answer` (Python expression of `n`, drawn from the seed), with an oracle
 * that reads it: one reply (or `tries` replies, each told right or wrong), shown `prompt`.
 */
function task(name: string, answer: string, options: { readonly prompt?: string; readonly tries?: number } = {}) {
  const tries = options.tries ?? 1;
  const env = [
    "import random",
    "",
    "class Task:",
    "    def reset(self, seed):",
    "        self.n = random.Random(seed).randint(1, 10**6)",
    `        self.answer = ${answer}`,
    `        self.left = ${tries}`,
    `        return f'Task {self.n}: ${options.prompt ?? "reply with the answer word."}'`,
    "",
    "    def step(self, action):",
    "        if self.left <= 0:",
    "            return ('over', 0.0, True, False, {})",
    "        self.left -= 1",
    "        right = action.strip() == self.answer",
    "        return ('right' if right else 'wrong', 1.0 if right else 0.0, right or self.left <= 0, False, {})",
  ].join("\n");
  return { ...testPackage(name, env, { interaction: tries > 1 ? "multi-turn" : "single-turn", maxTurns: tries }), oracleSource: "def act(env, observation):\n    return env.answer\n" };
}

describe("negative-controls gate: the fixed-reply control", () => {
  const sandbox = new BwrapSandbox();
  afterAll(() => sandbox.close());
  const context = (seeds = 8): AdmissionContext => ({ sandbox, settings: parseConfig({ admission: { seeds } }).admission, pool: [], ...testAdmissionResources() });

  it("rejects a task one fixed reply wins on every seed, spread seeds included", async () => {
    const verdict = await negativeControlsGate().check(task("always-even", "'even' if (self.n * 2) % 2 == 0 else 'odd'"), context());
    expect(verdict).toMatchObject({ status: "reject", reason: "fixed_reply_passes", message: 'one fixed reply ("even", the oracle\'s most common) wins on every one of 16 seeds: the answer does not depend on the instance' });
  });

  it("admits a three-way task and says which replies it played on how many seeds", async () => {
    const verdict = await negativeControlsGate().check(task("residue", "['zero', 'one', 'two'][self.n % 3]"), context());
    expect(verdict).toMatchObject({ status: "pass", evidence: { controls: ["empty_solution_passes", "random_agent_passes", "invalid_action_passes", "fixed_reply_passes"], fixedReplies: 2, fixedReplySeeds: 16 } });
  });

  it("does not play it on fewer than five seeds, and says so", async () => {
    const verdict = await negativeControlsGate().check(task("always-even", "'even'"), context(4));
    expect(verdict).toMatchObject({ status: "pass", evidence: { fixedReply: "not played: fewer than 5 seeds" } });
  });
});

describe("negative-controls gate: the random agent, by a binomial test (issue 34)", () => {
  const sandbox = new BwrapSandbox();
  afterAll(() => sandbox.close());
  const context = (seeds = 8): AdmissionContext => ({ sandbox, settings: parseConfig({ admission: { seeds } }).admission, pool: [], ...testAdmissionResources() });

  it("admits a yes/no task that the random agent wins only at chance, on 16 seeds", async () => {
    // three tries at "is it even?": the random agent says "yes" or "no" in a few % of its replies, and with these
    // seeds it wins 2 of 16 episodes (2 of the first 8: the old rule, any win rejects, refused the task)
    const parity = task("parity", "'yes' if self.n % 2 == 0 else 'no'", { prompt: "is it even? Reply yes or no", tries: 3 });
    const verdict = await negativeControlsGate().check(parity, context());
    expect(verdict).toMatchObject({ status: "pass", evidence: { randomAgent: { episodes: 16 } } });
    const random = (verdict.evidence as { randomAgent: { wins: number; pValue: number } }).randomAgent;
    expect(random.wins).toBeGreaterThan(0); // it did win: the old rule (any win rejects) refused this task
    expect(random.pValue).toBeGreaterThanOrEqual(0.05);
  });

  it("rejects a task the random agent wins far more often than chance allows, with the test's figures", async () => {
    // any integer wins: 29 of 64 random episodes
    const verdict = await negativeControlsGate().check(loadPackageFolder("fixtures/broken-envs/any-integer-accepted"), context());
    expect(verdict).toMatchObject({ status: "reject", reason: "random_agent_passes" });
    expect(verdict.status === "reject" && verdict.message).toMatch(/^the random agent wins \d+ of 16 seeds; a sound task lets it win at most 5 % of its episodes \(admission\.randomWinRate\), and \d+ or more wins have probability [0-9.e-]+ under that rate$/);
  });
});
