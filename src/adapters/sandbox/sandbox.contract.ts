import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvProgram, EnvSession, Sandbox, SandboxOutcome } from "../../spec/index.js";

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

function unwrap<T>(outcome: SandboxOutcome<T>): T {
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

/**
 * The contract every {@link Sandbox} backend must honour. Call it from the
 * backend's test file with a factory; limits should use a short call timeout
 * (about 2 s) so the timeout case stays fast.
 */
export function sandboxContract(name: string, create: () => Sandbox): void {
  describe(`Sandbox contract: ${name}`, () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = create();
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
  });
}
