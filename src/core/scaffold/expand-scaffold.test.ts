import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { fromPackageDocument } from "../../adapters/package-files/index.js";
import { parseConfig } from "../../config/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { admit, buildGates } from "../admission/index.js";
import type { EnvSession } from "../../spec/index.js";
import { playEpisode, type Policy } from "../rollout/index.js";
import { authoredSource, expandScaffold, isScaffoldOracle, isScaffoldSource, missingScaffoldFunctions } from "./expand-scaffold.js";

// The scaffold template run in the real sandbox. The task functions below are written for this test
// (hand-written, not model output).

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());

const MULTIPLY = `def generate(rng):
    return {"a": rng.randint(11, 99), "b": rng.randint(11, 99)}

def render(instance):
    return f"What is {instance['a']} times {instance['b']}? Reply with one integer."

def solve(instance):
    return instance["a"] * instance["b"]
`;

function packageOf(authored: string, maxTurns = 1) {
  const { envSource, oracleSource } = expandScaffold(authored);
  return fromPackageDocument({
    manifest: {
      schemaVersion: 1,
      name: "multiply-two-digits",
      title: "Multiply two two-digit numbers",
      description: "The agent multiplies two two-digit numbers and replies with the product.",
      interaction: maxTurns > 1 ? "multi-turn" : "single-turn",
      maxTurns,
      rewardRange: [0, 1],
      passThreshold: 1,
      hint: "Split one factor into tens and units and add the two partial products.",
      skills: ["arithmetic"],
      scenario: "mental arithmetic",
      difficulty: {},
      provenance: { origin: "seed", createdAt: "2026-12-01T00:00:00.000Z" },
    },
    files: { "env.py": envSource, "oracle.py": oracleSource },
  });
}

async function openSession(pkg: ReturnType<typeof packageOf>): Promise<EnvSession> {
  const opened = await sandbox.open(pkg);
  if (opened.kind !== "ok") throw new Error(`the sandbox could not open the package: ${opened.message}`);
  return opened.value;
}

async function play(pkg: ReturnType<typeof packageOf>, actions: readonly string[], seed = 3) {
  const session = await openSession(pkg);
  try {
    let turn = 0;
    const policy: Policy = { name: "scripted", act: async () => ({ text: actions[Math.min(turn++, actions.length - 1)] as string }) };
    return await playEpisode(session, pkg.manifest, seed, policy);
  } finally {
    await session.close();
  }
}

describe("scaffold format", () => {
  it("tells scaffolded sources from free-form classes and names missing functions", () => {
    expect(isScaffoldSource(MULTIPLY)).toBe(true);
    expect(isScaffoldSource(`${MULTIPLY}\nclass Env:\n    def reset(self, seed): ...\n    def step(self, action): ...\n`)).toBe(false);
    expect(missingScaffoldFunctions("def generate(rng):\n    return 1\n")).toEqual(["render", "solve"]);
    const expanded = expandScaffold(MULTIPLY);
    expect(authoredSource(expanded.envSource)).toBe(MULTIPLY.trimEnd());
    expect(isScaffoldOracle(expanded.oracleSource)).toBe(true);
  });

  it("passes the mechanical admission gates with a correct task", async () => {
    const config = parseConfig({ admission: { skip: ["self-review", "calibration"] } });
    const result = await admit(packageOf(MULTIPLY), buildGates(config.admission), { ...testAdmissionResources(), sandbox, settings: config.admission, pool: [] });
    expect(result.verdicts.filter((verdict) => verdict.status === "reject")).toEqual([]);
    expect(result.admitted).toBe(true);
  });

  it("scores one answer strictly: labels and punctuation are fine, candidate lists and words around it are not", async () => {
    const pkg = packageOf(MULTIPLY);
    const session = await openSession(pkg);
    const first = await session.reset(3);
    await session.close();
    expect(first.kind).toBe("ok");
    const [a, b] = (first.kind === "ok" ? first.value : "").match(/\d+/g)?.map(Number) ?? [];
    const answer = (a as number) * (b as number);
    for (const reply of [`${answer}`, `Answer: ${answer}`, `The answer is ${answer}.`, `\`${answer}\``, `${answer}.0`]) {
      expect((await play(pkg, [reply])).return, reply).toBe(1);
    }
    for (const reply of [`${answer - 1} ${answer} ${answer + 1}`, `I think ${answer}`, `${answer + 1}`, ""]) {
      expect((await play(pkg, [reply])).return, reply).toBe(0);
    }
    const unreadable = await play(pkg, ["no idea"]);
    expect(unreadable.turns[0]?.invalidAction).toBe(true);
  });

  it("compares large integers exactly and floats in their shortest text form", async () => {
    const big = packageOf(MULTIPLY.replace('return instance["a"] * instance["b"]', 'return instance["a"] * instance["b"] * 1000003'));
    const session = await openSession(big);
    const first = await session.reset(3);
    await session.close();
    const [a, b] = (first.kind === "ok" ? first.value : "").match(/\d+/g)?.map(Number) ?? [];
    const answer = (a as number) * (b as number) * 1000003;
    expect((await play(big, [String(answer)])).return).toBe(1);
    expect((await play(big, [String(answer + 1)])).return).toBe(0);
    const third = packageOf(MULTIPLY.replace('return instance["a"] * instance["b"]', 'return instance["a"] / 3'));
    const exact = String((a as number) / 3);
    expect((await play(third, [exact])).return).toBe(1);
    expect((await play(third, [((a as number) / 3).toFixed(4)])).return).toBe(0);
  });

  it("gives MAX_TURNS tries with the task's feedback, and checks with check() when defined", async () => {
    const multiTurn = `MAX_TURNS = 3\n${MULTIPLY}\ndef feedback(instance, reply):\n    return "Too low." if int(reply) < solve(instance) else "Too high."\n`;
    const pkg = packageOf(multiTurn, 3);
    const episode = await play(pkg, ["1", "100000", "Answer: 0"]);
    expect(episode.turns.map((turn) => turn.observation)).toEqual(["Too low.", "Too high.", "Wrong. The episode is over."]);
    const custom = packageOf(`${MULTIPLY}\ndef check(instance, reply):\n    return reply.strip().lower() == "many"\n`);
    expect((await play(custom, ["MANY"])).return).toBe(1);
  });

  it("binds the standard modules small models forget to import, without overriding the Designer's own names", async () => {
    const forgetful = MULTIPLY.replace('return instance["a"] * instance["b"]', 'return math.prod([instance["a"], instance["b"]]) + len(string) * 0').replace("def generate(rng):", 'string = "mine"\n\ndef generate(rng):');
    const session = await openSession(packageOf(forgetful));
    const outcome = await session.reset(2);
    await session.close();
    expect(outcome.kind).toBe("ok");
    const episode = await play(packageOf(forgetful), ["0"], 2);
    expect(episode.failure).toBeUndefined();
  });

  it("reports solve() returning None as a reset failure with a clear message", async () => {
    const pkg = packageOf(MULTIPLY.replace('return instance["a"] * instance["b"]', "pass"));
    const session = await openSession(pkg);
    const outcome = await session.reset(1);
    await session.close();
    expect(outcome).toMatchObject({ kind: "crash" });
    expect(JSON.stringify(outcome)).toContain("solve(instance) returned None");
  });
});
