import { arch } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import type { EnvSession, SandboxOutcome } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { descendantsOf } from "./process-tree.js";
import { programWithStep, sandboxContract } from "./sandbox.contract.js";

sandboxContract("bwrap", (limits) => new BwrapSandbox({ limits }));

function unwrap<T>(outcome: SandboxOutcome<T>): T {
  if (outcome.kind !== "ok") throw new Error(`expected ok, got ${outcome.kind}: ${outcome.message}`);
  return outcome.value;
}

describe("BwrapSandbox jails", () => {
  const sandboxes: BwrapSandbox[] = [];
  const create = (options: ConstructorParameters<typeof BwrapSandbox>[0] = {}) => {
    const sandbox = new BwrapSandbox({ ...options, limits: { callTimeoutMs: 3000, ...options.limits } });
    sandboxes.push(sandbox);
    return sandbox;
  };
  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  });

  it("self-test: seccomp refuses fork, sockets, execve, kill of the parent, setsid, pidfd_open, memfd_create, mknod, unshare, ptrace, bpf, io_uring; no network, no /etc, no home; rlimits set", async () => {
    const report = await create({ limits: { cpuSeconds: 7 } }).selfTest();
    if ("error" in report) throw new Error(report.error);
    expect(report.seccomp).toBe("active");
    const syscalls = { fork: true, socket: true, "unix socket": true, execve: true, "kill parent": true, setsid: true, "pidfd_open of the parent": true, memfd_create: true, mknod: true };
    const raw = { unshare: true, ptrace: true, bpf: true, io_uring_setup: true }; // probed through ctypes on x86_64 only
    expect(report.blocked).toEqual(arch() === "x64" ? { ...syscalls, ...raw } : syscalls);
    expect(report.network).toBe("isolated");
    expect(report.etcVisible).toBe(false);
    expect(report.homeVisible).toBe(false);
    expect(report.hashSeedFixed).toBe(true);
    expect(report.uid).toBe(65534);
    expect(report.rlimits.RLIMIT_CPU).toEqual([7, 8]);
    expect(report.rlimits.RLIMIT_CORE).toEqual([0, 0]);
  });

  it("recycles a jail after the configured number of episodes, and the session carries on in the new one", async () => {
    const sandbox = create({ recycleAfterEpisodes: 2 });
    const session: EnvSession = unwrap(await sandbox.open(programWithStep("        pass")));
    const jailsSeen = new Set<number>();
    for (let episode = 0; episode < 5; episode += 1) {
      expect(unwrap(await session.reset(episode))).toBe(`seed ${episode}`);
      expect(unwrap(await session.step("a")).observation).toBe("ok");
      for (const pid of sandbox.jailProcessIds()) jailsSeen.add(pid);
    }
    expect(jailsSeen.size).toBe(3);
    await session.close();
    expect(sandbox.jailProcessIds().length).toBeLessThanOrEqual(1);
  });

  it("refuses _ctypes however it is imported (plain, importlib, or from an oracle): the jailed zygote never loads it, so every import raises the audited event", async () => {
    const sandbox = create();
    const attacks = ["        import _ctypes", "        import importlib\n        importlib.import_module('_ctypes')", "        __import__('_ctypes')"];
    for (const attack of attacks) {
      const session = unwrap(await sandbox.open(programWithStep(attack)));
      unwrap(await session.reset(1));
      const outcome = await session.step("a");
      expect(outcome.kind, attack).toBe("forbidden");
      if (outcome.kind !== "ok") expect(outcome.message).toContain("_ctypes");
      await session.close();
    }
    const oracle = { ...programWithStep("        pass"), oracleSource: "import importlib\ndef act(env, observation):\n    importlib.import_module('_ctypes')\n    return 'x'\n" };
    const session = unwrap(await sandbox.open(oracle));
    unwrap(await session.reset(1));
    const outcome = await session.oracleAction("seed 1");
    expect(outcome.kind).toBe("forbidden");
    await session.close();
  });

  it("survives the death of a whole jail: the live episode gets a crash, the next reset starts a fresh jail", async () => {
    const sandbox = create();
    const session = unwrap(await sandbox.open(programWithStep("        pass")));
    unwrap(await session.reset(1));
    const [pid] = sandbox.jailProcessIds();
    process.kill(-(pid as number), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await session.step("a")).kind).toBe("crash");
    expect(unwrap(await session.reset(2))).toBe("seed 2");
    expect(sandbox.jailProcessIds()).not.toContain(pid);
    await session.close();
  });

  it("runs sessions on several workers in parallel, one jail each", async () => {
    const sandbox = create({ workers: 2 });
    const sessions = await Promise.all([0, 1].map(async () => unwrap(await sandbox.open(programWithStep("        pass")))));
    const observations = await Promise.all(sessions.map(async (session, index) => unwrap(await session.reset(index))));
    expect(observations).toEqual(["seed 0", "seed 1"]);
    expect(sandbox.jailProcessIds()).toHaveLength(2);
    await Promise.all(sessions.map((session) => session.close()));
  });

  it("a partial frame an episode leaves on its lane never reaches the next episode", async () => {
    const sandbox = create({ limits: { callTimeoutMs: 800 } });
    const session = unwrap(await sandbox.open(programWithStep("        import os, time\n        if action == 'cut':\n            os.write(4, b'\\x00\\x00\\x00\\x40\\x00')\n            time.sleep(5)")));
    for (let episode = 0; episode < 3; episode += 1) {
      unwrap(await session.reset(episode));
      expect((await session.step("cut")).kind).toBe("timeout");
      expect(unwrap(await session.reset(10 + episode))).toBe(`seed ${10 + episode}`);
      expect(unwrap(await session.step("fine")).observation).toBe("ok");
    }
    await session.close();
  });

  it("serves episodes beyond the free lanes through the zygote, side by side with lane episodes", async () => {
    const sandbox = create({ lanes: 1 });
    const sessions = await Promise.all([0, 1, 2].map(async () => unwrap(await sandbox.open(programWithStep("        pass")))));
    for (let round = 0; round < 2; round += 1) {
      expect(await Promise.all(sessions.map(async (session, index) => unwrap(await session.reset(index))))).toEqual(["seed 0", "seed 1", "seed 2"]);
      const steps = await Promise.all(sessions.map(async (session) => unwrap(await session.step("a")).observation));
      expect(steps).toEqual(["ok", "ok", "ok"]);
    }
    await Promise.all(sessions.map((session) => session.close()));
  });

  it("leaves no process behind after close", async () => {
    const sandbox = new BwrapSandbox();
    const session = unwrap(await sandbox.open(programWithStep("        pass")));
    unwrap(await session.reset(1));
    const [pid] = sandbox.jailProcessIds();
    expect(descendantsOf(process.pid).some((entry) => entry.pid === pid)).toBe(true);
    await sandbox.close();
    expect(descendantsOf(process.pid).some((entry) => entry.pid === pid)).toBe(false);
  });
});
