import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { fromPackageDocument } from "../../adapters/package-files/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { expandScaffold } from "../scaffold/index.js";
import { determinismGate } from "./determinism-gate.js";
import type { AdmissionContext } from "./gate.js";
import { reusedInstanceSource } from "./reused-instance.js";
import { spreadSeeds, TRAINING_SEED_BOUND } from "./probe-episodes.js";

// The determinism gate in the real sandbox on small hand-written environments (one defect each).

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());
const config = parseConfig({});
const context = (): AdmissionContext => ({ ...testAdmissionResources(), sandbox, settings: config.admission });

/** A single-turn task: reply with the sum of three numbers drawn from `rng` (the Python expression `seedExpression` seeds it). */
function sumTask(options: { seedExpression?: string; before?: string; resetExtra?: string; reward?: string; passThreshold?: number } = {}) {
  const env = `import random
import re
${options.before ?? ""}

class ThreeSum:
    def reset(self, seed):
${options.resetExtra ?? ""}        rng = random.Random(${options.seedExpression ?? "seed"})
        self.numbers = [rng.randint(10, 99) for _ in range(3)]
        self.answer = sum(self.numbers)
        self.done = False
        return "Add: " + " ".join(str(n) for n in self.numbers) + self.banner()

    def banner(self):
        return ""

    def step(self, action):
        if self.done:
            return ("over", 0.0, True, False, {})
        self.done = True
        correct = action.strip() == f"Answer: {self.answer}"
        return ("Correct." if correct else "Wrong.", ${options.reward ?? "1.0"} if correct else 0.0, True, False, {})
`;
  return fromPackageDocument({
    manifest: {
      schemaVersion: 1,
      name: "three-sum",
      title: "Add three numbers",
      description: "Reply with the sum of three numbers as 'Answer: <n>'.",
      interaction: "single-turn",
      maxTurns: 1,
      rewardRange: [0, 1],
      passThreshold: options.passThreshold ?? 1,
      hint: "Add the tens first, then the units.",
      skills: ["arithmetic"],
      scenario: "adding",
      difficulty: {},
      provenance: { origin: "seed", createdAt: "2026-12-01T00:00:00.000Z" },
    },
    files: { "env.py": env, "oracle.py": 'def act(env, observation):\n    return f"Answer: {env.answer}"\n' },
  });
}

async function verdictOf(pkg: ReturnType<typeof sumTask>) {
  const verdict = await determinismGate().check(pkg, context());
  return verdict.status === "pass" ? "pass" : verdict.reason;
}

describe("spread seeds", () => {
  it("are spread over the training range, large ones included, and fixed", () => {
    const seeds = spreadSeeds(8);
    expect(seeds).toEqual(spreadSeeds(8));
    expect(new Set(seeds).size).toBe(8);
    expect(Math.min(...seeds)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...seeds)).toBeLessThan(TRAINING_SEED_BOUND);
    expect(Math.max(...seeds)).toBeGreaterThan(0.9 * TRAINING_SEED_BOUND);
    expect(new Set(seeds.map((seed) => seed % 10)).size).toBeGreaterThan(3);
  });
});

describe("determinism gate", () => {
  it("passes a sound environment", async () => {
    expect(await verdictOf(sumTask())).toBe("pass");
  }, 60_000);

  it("rejects a clamped seed (seeds 0..7 all differ, training seeds do not)", async () => {
    expect(await verdictOf(sumTask({ seedExpression: "min(seed, 100)" }))).toBe("seeds_identical");
  }, 60_000);

  it("rejects state carried across resets: class attribute, module global, instance field", async () => {
    expect(await verdictOf(sumTask({ resetExtra: "        ThreeSum.count = getattr(ThreeSum, 'count', 0) + 1\n", seedExpression: "seed + ThreeSum.count" }))).toBe("history_dependent");
    expect(await verdictOf(sumTask({ before: "SEEN = []\n", resetExtra: "        SEEN.append(seed)\n", seedExpression: "seed * 7 + len(SEEN)" }))).toBe("history_dependent");
    // an instance field set once and shown: only a reused instance has played before
    const played = sumTask({ resetExtra: "        self.played = getattr(self, 'played', -1) + 1\n" });
    const shown = { ...played, envSource: played.envSource.replace('        return ""', '        return f" (episode {self.played})"') };
    expect(await verdictOf(shown)).toBe("history_dependent");
  }, 120_000);

  it("rejects state that shows only from the third episode on the same instance (issue 34)", async () => {
    const late = sumTask({ resetExtra: "        self.played = getattr(self, 'played', -1) + 1\n" });
    const shown = { ...late, envSource: late.envSource.replace('        return ""', '        return " (a regular)" if self.played >= 2 else ""') };
    expect(await verdictOf(shown)).toBe("history_dependent");
  }, 120_000);

  it("rejects a reward that reads the clock only on the winning path (the oracle's episode replayed)", async () => {
    expect(await verdictOf(sumTask({ before: "import time\n", reward: "0.9 + (time.perf_counter_ns() % 997) / 10000", passThreshold: 0.9 }))).toBe("nondeterministic");
  }, 60_000);

  it("passes the scaffold's environment class, single- and multi-turn", async () => {
    const authored = `MAX_TURNS = 3

def generate(rng):
    return {"a": rng.randint(11, 99), "b": rng.randint(11, 99)}

def render(instance):
    return f"What is {instance['a']} plus {instance['b']}?"

def solve(instance):
    return instance["a"] + instance["b"]
`;
    for (const source of [authored, authored.replace("MAX_TURNS = 3", "MAX_TURNS = 1")]) {
      const { envSource, oracleSource } = expandScaffold(source);
      const base = sumTask();
      const pkg = { ...base, envSource, oracleSource, manifest: { ...base.manifest, maxTurns: source.includes("= 3") ? 3 : 1, interaction: source.includes("= 3") ? ("multi-turn" as const) : ("single-turn" as const) } };
      expect(await verdictOf(pkg)).toBe("pass");
    }
  }, 120_000);
});

describe("reusedInstanceSource", () => {
  it("plays the warm-up episodes on the same instance before reset(seed)", async () => {
    const env = "class Counter:\n    def __init__(self):\n        self.resets = 0\n        self.steps = 0\n    def reset(self, seed):\n        self.resets += 1\n        return f'{seed} {self.resets} {self.steps}'\n    def step(self, action):\n        self.steps += 1\n        return ('ok', 0.0, action == 'stop', False, {})\n";
    const source = reusedInstanceSource(env, new Map([[3, [{ seed: 9, actions: ["go", "go", "stop", "never sent"] }, { seed: 8, actions: ["stop"] }]]]));
    const opened = await sandbox.open({ envSource: source, oracleSource: null });
    if (opened.kind !== "ok") throw new Error(opened.message);
    expect(await opened.value.reset(3)).toEqual({ kind: "ok", value: "3 3 4" });
    expect(await opened.value.reset(4)).toEqual({ kind: "ok", value: "4 1 0" });
    await opened.value.close();
  }, 30_000);
});
