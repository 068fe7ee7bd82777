import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvProgram, EnvSession, Sandbox, SandboxOutcome, StepResult } from "../../spec/index.js";
import { HOSTILE_SECRET_NAME, HOSTILE_SECRET_VALUE, hostilePrograms, LEAK_PROBE, type HostileProgram } from "./hostile-programs.js";
import type { SandboxLimits } from "./limits.js";
import { strayProcesses } from "./process-tree.js";

/** A tiny well-behaved environment whose step runs `body` (Python source, indented 8 spaces). */
export function programWithStep(body: string): EnvProgram {
  return {
    envSource: [
      "class Probe:",
      "    def reset(self, seed):",
      "        self.seed = seed",
      "        return f'seed {seed}'",
      "    def step(self, action):",
      body,
      "        return ('ok', 0.0, True, False, {})",
      "",
    ].join("\n"),
    oracleSource: "def act(env, observation):\n    return 'x'\n",
  };
}

/** The value of an `ok` outcome; throws with the outcome's kind and message otherwise. */
export function unwrap<T>(outcome: SandboxOutcome<T>): T {
  if (outcome.kind !== "ok") throw new Error(`expected ok, got ${outcome.kind}: ${outcome.message}`);
  return outcome.value;
}

async function stepOutcome(sandbox: Sandbox, body: string) {
  const session = unwrap(await sandbox.open(programWithStep(body)));
  unwrap(await session.reset(1));
  const outcome = await session.step("go");
  await session.close();
  return outcome;
}

/** Limits of the basic contract cases: a short call timeout keeps the timeout case fast. */
const BASIC_LIMITS: Partial<SandboxLimits> = { callTimeoutMs: 2000, memoryBytes: 512 * 1024 * 1024 };
/** Hostile cases that burn CPU: 2 s of CPU, and a wall clock long enough to reach it on a loaded machine. */
const CPU_LIMITS: Partial<SandboxLimits> = { callTimeoutMs: 15_000, cpuSeconds: 2, memoryBytes: 512 * 1024 * 1024, maxStderrBytes: 256 * 1024, maxFiles: 32 };
/** Hostile cases that block: a short wall clock, ample CPU. */
const WALL_LIMITS: Partial<SandboxLimits> = { callTimeoutMs: 1500, cpuSeconds: 30, memoryBytes: 512 * 1024 * 1024 };

/** Runs a hostile program's attack and returns the first non-`ok` outcome (or the last `ok`). */
async function attack(session: EnvSession, fixture: HostileProgram): Promise<SandboxOutcome<string | StepResult>> {
  if (fixture.phase === "reset") return session.reset(666);
  unwrap(await session.reset(1));
  let outcome: SandboxOutcome<StepResult> = await session.step("attack");
  for (let follow = 0; follow < (fixture.followUps ?? 0) && outcome.kind === "ok"; follow += 1) {
    outcome = await session.step("wait");
  }
  return outcome;
}

/** Stray processes under the test process, after a grace period of up to 1 s for ones being reaped. */
async function strays() {
  let found = strayProcesses(process.pid);
  for (let attempt = 0; attempt < 20 && found.length > 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = strayProcesses(process.pid);
  }
  return found;
}

function observationOf(value: string | StepResult): string {
  return typeof value === "string" ? value : value.observation;
}

/**
 * The contract every {@link Sandbox} backend must honour, including the
 * hostile-program suite ({@link hostilePrograms}): each attack ends with its
 * typed verdict, leaves no stray process (checked in the host's `/proc`), leaves
 * the host unaffected, and the next episode of the same session is clean.
 * Call it from the backend's test file with a factory taking limit overrides; the factory may
 * be async (the `remote` backend's starts a server with those limits first), and the sandbox's
 * `close` must free everything the factory started.
 */
export function sandboxContract(name: string, create: (limits: Partial<SandboxLimits>) => Sandbox | Promise<Sandbox>): void {
  describe(`Sandbox contract: ${name}`, () => {
    let sandbox: Sandbox;
    beforeAll(async () => {
      sandbox = await create(BASIC_LIMITS);
    });
    afterAll(async () => {
      await sandbox.close();
    });

    it("runs reset and step and returns typed values", async () => {
      const session = unwrap(await sandbox.open(programWithStep("        self.last = action")));
      expect(unwrap(await session.reset(7))).toBe("seed 7");
      expect(unwrap(await session.step("hello"))).toEqual({
        observation: "ok",
        reward: 0,
        terminated: true,
        truncated: false,
        info: {},
      });
      expect(unwrap(await session.oracleAction("seed 7"))).toBe("x");
      await session.close();
    });

    it("passes a level to reset(seed, level) when one is given, and calls reset(seed) when none is", async () => {
      const levelled: EnvProgram = {
        envSource: [
          "class Levelled:",
          "    def reset(self, seed, level=None):",
          "        return f'seed {seed} level {level}'",
          "    def step(self, action):",
          "        return ('ok', 0.0, True, False, {})",
          "",
        ].join("\n"),
        oracleSource: null,
      };
      const session = unwrap(await sandbox.open(levelled));
      expect(unwrap(await session.reset(4, 3))).toBe("seed 4 level 3");
      expect(unwrap(await session.reset(4))).toBe("seed 4 level None");
      expect(unwrap(await session.reset(5, 0))).toBe("seed 5 level 0");
      if (session.runActions !== undefined) expect(unwrap(await session.runActions(6, ["a"], 2)).initialObservation).toBe("seed 6 level 2");
      await session.close();
      const plain = unwrap(await sandbox.open(programWithStep("        pass")));
      const refused = await plain.reset(1, 2);
      expect(refused.kind).toBe("crash");
      expect(refused.kind === "ok" ? "" : `${refused.message} ${refused.detail ?? ""}`).toMatch(/positional argument/);
      await plain.close();
    });

    it("gives identical transcripts for the same seed, even with unseeded random and hash()", async () => {
      const body = [
        "        import random",
        "        return (f'{random.random():.12f} {hash(action) % 1000}', 0.0, False, False, {})",
      ].join("\n");
      const transcripts: string[][] = [];
      for (let run = 0; run < 2; run += 1) {
        const session = unwrap(await sandbox.open(programWithStep(body)));
        unwrap(await session.reset(3));
        const observations: string[] = [];
        for (const action of ["a", "b", "c"]) observations.push(unwrap(await session.step(action)).observation);
        transcripts.push(observations);
        await session.close();
      }
      expect(transcripts[0]).toEqual(transcripts[1]);
    });

    it("reports a syntax error at load as a crash with the traceback", async () => {
      const outcome = await sandbox.open({ envSource: "class Broken(:\n", oracleSource: null });
      expect(outcome.kind).toBe("crash");
      if (outcome.kind !== "ok") expect(outcome.detail ?? outcome.message).toContain("SyntaxError");
    });

    it("reports a program without an environment class as a crash", async () => {
      const outcome = await sandbox.open({ envSource: "x = 1\n", oracleSource: null });
      expect(outcome.kind).toBe("crash");
      if (outcome.kind !== "ok") expect(outcome.message).toContain("exactly one class");
    });

    it("reports an exception in step as a crash and the session stays dead", async () => {
      const session = unwrap(await sandbox.open(programWithStep("        raise ValueError('boom')")));
      unwrap(await session.reset(1));
      const first = await session.step("a");
      expect(first.kind).toBe("crash");
      if (first.kind !== "ok") expect(first.message).toContain("boom");
      expect((await session.step("b")).kind).toBe("crash");
      await session.close();
    });

    it("ends an infinite loop with a timeout and keeps serving new sessions", async () => {
      expect((await stepOutcome(sandbox, "        while True: pass")).kind).toBe("timeout");
      expect((await stepOutcome(sandbox, "        pass")).kind).toBe("ok");
    });

    it("rejects a NaN reward as a protocol violation", async () => {
      const outcome = await stepOutcome(sandbox, "        return ('x', float('nan'), True, False, {})");
      expect(outcome.kind).toBe("protocol_violation");
    });

    it("rejects a step result of the wrong shape as a protocol violation", async () => {
      expect((await stepOutcome(sandbox, "        return 'just a string'")).kind).toBe("protocol_violation");
    });

    it("keeps program prints out of the protocol", async () => {
      expect((await stepOutcome(sandbox, "        print('noise ' * 1000)")).kind).toBe("ok");
    });

    it("has no network", async () => {
      const body = [
        "        import socket",
        "        socket.create_connection(('1.1.1.1', 53), timeout=1)",
      ].join("\n");
      expect((await stepOutcome(sandbox, body)).kind).toBe("forbidden");
    });

    it("cannot read host files", async () => {
      expect((await stepOutcome(sandbox, "        open('/etc/passwd').read()")).kind).toBe("forbidden");
    });

    it("truncates oversize observations", async () => {
      const session: EnvSession = unwrap(await sandbox.open(programWithStep("        return ('y' * 100000, 0.0, True, False, {})")));
      unwrap(await session.reset(1));
      const step = unwrap(await session.step("a"));
      expect(step.observation.length).toBeLessThan(20_000);
      expect(step.observation).toContain("truncated");
      await session.close();
    });

    it("stops a memory bomb with a memory_limit verdict", async () => {
      const outcome = await stepOutcome(sandbox, "        x = bytearray(4 * 1024 * 1024 * 1024)");
      expect(outcome.kind).toBe("memory_limit");
    });

    it("starts every episode clean: no module globals or files survive from an earlier reset", async () => {
      const session = unwrap(await sandbox.open(LEAK_PROBE));
      for (const seed of [1, 2, 3]) expect(unwrap(await session.reset(seed))).toBe("episodes=1 file=False");
      await session.close();
    });

    it("gives identical transcripts across separate sandboxes (jails)", async () => {
      const body = [
        "        import random",
        "        return (f'{random.random():.12f} {random.randint(0, 10**9)} {hash(action)} {hash((action, 1))}', 0.0, False, False, {})",
      ].join("\n");
      const transcripts: string[][] = [];
      for (let run = 0; run < 2; run += 1) {
        const other = await create(BASIC_LIMITS);
        const session = unwrap(await other.open(programWithStep(body)));
        unwrap(await session.reset(11));
        const observations: string[] = [];
        for (const action of ["left", "right", "left"]) observations.push(unwrap(await session.step(action)).observation);
        transcripts.push(observations);
        await other.close();
      }
      expect(transcripts[0]).toEqual(transcripts[1]);
      expect(new Set(transcripts[0]).size).toBe(3);
    });

    it("runActions plays a whole episode in one batch with the same transcript as call-by-call steps", async () => {
      const program: EnvProgram = {
        envSource: [
          "import random",
          "class Counter:",
          "    def reset(self, seed):",
          "        self.total = seed",
          "        return f'start {seed}'",
          "    def step(self, action):",
          "        self.total += len(action)",
          "        return (f'{self.total} {random.random():.9f}', 0.5, self.total > 12, False, {'n': self.total})",
          "",
        ].join("\n"),
        oracleSource: null,
      };
      const actions = ["ab", "cde", "f", "ghij", "k", "never reached"];
      const session = unwrap(await sandbox.open(program));
      const stepwise: StepResult[] = [];
      unwrap(await session.reset(4));
      for (const action of actions) {
        const result = unwrap(await session.step(action));
        stepwise.push(result);
        if (result.terminated) break;
      }
      expect(session.runActions).toBeTypeOf("function");
      const batch = unwrap(await (session.runActions as NonNullable<EnvSession["runActions"]>)(4, actions));
      expect(batch.initialObservation).toBe("start 4");
      expect(batch.steps).toEqual(stepwise);
      expect(batch.steps.at(-1)?.terminated).toBe(true);
      await session.close();
      const broken = unwrap(await sandbox.open(programWithStep("        return ('x', float('nan'), False, False, {})")));
      const failing = await (broken.runActions as NonNullable<EnvSession["runActions"]>)(1, ["a", "b"]);
      expect(failing.kind).toBe("protocol_violation");
      await broken.close();
    });

    it("rejects a step reward outside the declared range", async () => {
      const program = { ...programWithStep("        return ('x', 5.0, True, False, {})"), rewardRange: [0, 1] as const };
      const session = unwrap(await sandbox.open(program));
      unwrap(await session.reset(1));
      const outcome = await session.step("a");
      expect(outcome.kind).toBe("reward_out_of_range");
      if (outcome.kind !== "ok") expect(outcome.message).toContain("outside the declared range");
      await session.close();
    });

    it("reports a step before reset as a protocol violation without running code", async () => {
      const session = unwrap(await sandbox.open(programWithStep("        pass")));
      expect((await session.step("a")).kind).toBe("protocol_violation");
      await session.close();
    });

    it("rejects a program source over the size cap without running it", async () => {
      const outcome = await sandbox.open({ envSource: `# ${"x".repeat(2 * 1024 * 1024)}\n`, oracleSource: null });
      expect(outcome.kind).toBe("protocol_violation");
    });

    it("reports a program that loops at import time (its load) as a typed failure", async () => {
      const outcome = await sandbox.open({ envSource: "import time\ntime.sleep(1000)\n", oracleSource: null });
      expect(outcome.kind).toBe("timeout");
    });
  });

  describe(`Sandbox hostile suite: ${name}`, () => {
    const hostFile = join(process.cwd(), ".envforge-hostile-marker");
    const fixtures = hostilePrograms(homedir(), hostFile);
    const sandboxes: Partial<Record<"cpu" | "wall", Sandbox>> = {};
    const previousSecret = process.env[HOSTILE_SECRET_NAME];
    beforeAll(async () => {
      process.env[HOSTILE_SECRET_NAME] = HOSTILE_SECRET_VALUE;
      sandboxes.cpu = await create(CPU_LIMITS);
      sandboxes.wall = await create(WALL_LIMITS);
    });
    afterAll(async () => {
      await Promise.all(Object.values(sandboxes).map((each) => each.close()));
      if (previousSecret === undefined) delete process.env[HOSTILE_SECRET_NAME];
      else process.env[HOSTILE_SECRET_NAME] = previousSecret;
      expect(existsSync(hostFile)).toBe(false);
      expect(await strays()).toEqual([]);
    });

    it("has at least 30 hostile programs", () => {
      expect(fixtures.length).toBeGreaterThanOrEqual(30);
    });

    for (const fixture of fixtures) {
      it(`${fixture.name}: ${fixture.expected}, no stray process, next episode clean`, async () => {
        const sandbox = sandboxes[fixture.limits ?? "cpu"] as Sandbox;
        const session = unwrap(await sandbox.open(fixture.program));
        const outcome = await attack(session, fixture);
        expect(outcome.kind, JSON.stringify(outcome).slice(0, 600)).toBe(fixture.expected);
        if (outcome.kind === "ok") {
          const check = fixture.evidence;
          if (typeof check === "function") expect(check(observationOf(outcome.value)), observationOf(outcome.value).slice(0, 300)).toBe(true);
        } else {
          if (typeof fixture.evidence === "string") expect(`${outcome.message}\n${outcome.detail ?? ""}`).toContain(fixture.evidence);
          expect(await strays()).toEqual([]);
        }
        expect(unwrap(await session.reset(2))).toBe("ready");
        expect(unwrap(await session.step("calm")).observation).toBe("calm");
        await session.close();
        expect(await strays()).toEqual([]);
        expect(existsSync(hostFile)).toBe(false);
      });
    }
  });
}
