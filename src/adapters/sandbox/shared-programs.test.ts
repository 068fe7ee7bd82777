import { afterAll, describe, expect, it } from "vitest";
import type { EnvProgram, SandboxOutcome } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { descendantsOf } from "./process-tree.js";

function unwrap<T>(outcome: SandboxOutcome<T>): T {
  if (outcome.kind !== "ok") throw new Error(`expected ok, got ${outcome.kind}: ${outcome.message}`);
  return outcome.value;
}

/** Counts a module-level global, so a leak between episodes would show in the observation. */
const COUNTER: EnvProgram = {
  envSource: [
    "CALLS = []",
    "class Counter:",
    "    def reset(self, seed):",
    "        CALLS.append(seed)",
    "        return f'seed {seed} calls {len(CALLS)}'",
    "    def step(self, action):",
    "        CALLS.append(action)",
    "        return (f'calls {len(CALLS)}', 0.0, False, False, {})",
    "",
  ].join("\n"),
  oracleSource: null,
};

/** Python processes of the sandbox's jails (zygotes, spares, episodes); bwrap wrappers left out. */
function pythonProcesses(): number {
  return descendantsOf(process.pid).filter((entry) => entry.commandLine.startsWith("/usr/bin/python3")).length;
}

describe("ZygoteSandbox program sharing", () => {
  const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
  afterAll(() => sandbox.close());

  it("sessions of the same program in one jail share one loaded copy and one spare, with episodes still isolated", async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, async () => unwrap(await sandbox.open(COUNTER))));
    const resets = await Promise.all(sessions.map((session, index) => session.reset(index)));
    expect(resets.map(unwrap)).toEqual(Array.from({ length: 8 }, (_, index) => `seed ${index} calls 1`));
    const steps = await Promise.all(sessions.map((session) => session.step("a")));
    expect(steps.map((step) => unwrap(step).observation)).toEqual(Array.from({ length: 8 }, () => "calls 2"));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the idle zygote forks its spare
    // one zygote, eight episodes and one spare for the shared program (not eight spares)
    expect(pythonProcesses()).toBe(1 + 8 + 1);
    await Promise.all(sessions.slice(0, 7).map((session) => session.close()));
    const last = sessions[7];
    if (last === undefined) throw new Error("no session");
    expect(unwrap(await last.reset(99))).toBe("seed 99 calls 1");
    await last.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pythonProcesses()).toBe(1); // the last close forgot the program and ended its spare
    const again = unwrap(await sandbox.open(COUNTER));
    expect(unwrap(await again.reset(5))).toBe("seed 5 calls 1");
    await again.close();
  });

  it("with programLingerMs, an unheld program stays loaded for that long, and a session opened meanwhile reuses it", async () => {
    const lingering = new BwrapSandbox({ programLingerMs: 400, limits: { callTimeoutMs: 5000 } });
    const others = pythonProcesses(); // the other sandbox's zygote
    try {
      const first = unwrap(await lingering.open(COUNTER));
      unwrap(await first.reset(1));
      await first.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(pythonProcesses() - others).toBe(2); // the zygote and the program's spare
      const second = unwrap(await lingering.open(COUNTER));
      expect(unwrap(await second.reset(2))).toBe("seed 2 calls 1");
      await second.close();
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(pythonProcesses() - others).toBe(1); // forgotten once the linger ran out
    } finally {
      await lingering.close();
    }
  });

  it("a program that fails to load is reported to every session that opens it, and is not kept", async () => {
    const broken: EnvProgram = { envSource: "class Broken(:\n", oracleSource: null };
    const outcomes = await Promise.all(Array.from({ length: 3 }, () => sandbox.open(broken)));
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["crash", "crash", "crash"]);
    expect((await sandbox.open(broken)).kind).toBe("crash");
  });
});
