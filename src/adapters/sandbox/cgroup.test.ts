import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { JailCgroup, probeCgroups, sweepStaleCgroups } from "./cgroup.js";
import { programWithStep } from "./sandbox.contract.js";

const roots: string[] = [];
function fakeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "envforge-cgroup-test-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe("probeCgroups", () => {
  it("finds writable v1 memory, pids and cpu hierarchies below the supervisor's own cgroups", () => {
    const root = fakeRoot({ "memory/cgroup.procs": "", "memory/mine/cgroup.procs": "", "pids/cgroup.procs": "", "cpu/cgroup.procs": "" });
    const support = probeCgroups(root, "4:memory:/mine\n8:pids:/\n1:cpu,cpuacct:/\n0::/\n");
    expect(support).toMatchObject({ active: true, version: "v1", parents: { memory: join(root, "memory/mine"), pids: join(root, "pids"), cpu: join(root, "cpu") } });
  });

  it("reports cgroup v2 without the memory and pids controllers delegated as inactive, with how to enable them", () => {
    const root = fakeRoot({ "cgroup.controllers": "cpu memory pids", "user/cgroup.subtree_control": "cpu" });
    const support = probeCgroups(root, "0::/user\n");
    expect(support.active).toBe(false);
    expect(support.detail).toBe(`cgroup v2: memory and pids not enabled in ${join(root, "user")}/cgroup.subtree_control`);
    expect(support.active === false && support.howToEnable).toContain("Delegate=yes");
  });

  it("accepts a delegated cgroup v2 subtree", () => {
    const root = fakeRoot({ "cgroup.controllers": "cpu memory pids", "user/cgroup.subtree_control": "memory pids" });
    expect(probeCgroups(root, "0::/user\n")).toMatchObject({ active: true, version: "v2", parents: { memory: join(root, "user"), pids: join(root, "user") } });
  });

  it("reports a machine without cgroup hierarchies as inactive", () => {
    expect(probeCgroups(fakeRoot({}), "0::/\n")).toMatchObject({ active: false, detail: "no cgroup hierarchy with the memory and pids controllers is mounted" });
  });

  it("sweeps the empty jail cgroups of supervisors that no longer run, and nothing else", () => {
    const root = fakeRoot({ "memory/cgroup.procs": "", "pids/cgroup.procs": "" });
    const support = probeCgroups(root, "4:memory:/\n8:pids:/\n");
    if (!support.active) throw new Error(support.detail);
    const gone = join(root, "memory", "envforge-2147483646-1"); // above any pid_max: never a running process
    const live = join(root, "pids", `envforge-${process.pid}-7`);
    const other = join(root, "pids", "not-envforge");
    for (const directory of [gone, live, other]) mkdirSync(directory);
    expect(sweepStaleCgroups(support)).toEqual([gone]);
    expect([existsSync(gone), existsSync(live), existsSync(other)]).toEqual([false, true, true]);
  });

  it("writes the v1 limits into a new jail cgroup and removes it", async () => {
    const root = fakeRoot({ "memory/cgroup.procs": "", "pids/cgroup.procs": "", "cpu/cgroup.procs": "" });
    const support = probeCgroups(root, "4:memory:/\n8:pids:/\n1:cpu:/\n");
    if (!support.active) throw new Error(support.detail);
    const cgroup = JailCgroup.create(support, { memoryBytes: 1 << 28, pids: 99, cpus: 1.5 });
    if (!(cgroup instanceof JailCgroup)) throw new Error(cgroup.error);
    const [memory, pids, cpu] = cgroup.directories as [string, string, string];
    expect(readFileSync(join(memory, "memory.limit_in_bytes"), "utf8")).toBe(String(1 << 28));
    expect(readFileSync(join(pids, "pids.max"), "utf8")).toBe("99");
    expect(readFileSync(join(cpu, "cpu.cfs_quota_us"), "utf8")).toBe("150000");
    expect(cgroup.wrap({ command: "bwrap", args: ["x"], env: {} }).args.slice(2)).toEqual(["envforge-cgroup", "3", ...cgroup.procsFiles, "bwrap", "x"]);
    for (const directory of cgroup.directories) rmSync(directory, { recursive: true }); // a real cgroup directory holds only kernel files
    expect(await cgroup.removeWhenEmpty()).toEqual([]);
  });
});

describe("jail cgroups on this machine", () => {
  it("puts each jail in a cgroup with the configured limits, stops a memory bomb there when rlimits are loose, and leaves no cgroup after close; or reports why not", async () => {
    const jailMemoryBytes = 192 * 1024 * 1024;
    const sandbox = new BwrapSandbox({ limits: { memoryBytes: 16 * 1024 ** 3, jailMemoryBytes, jailPids: 77, callTimeoutMs: 20_000 } });
    try {
      const session = await sandbox.open(programWithStep("        if action == 'bomb':\n            chunks = []\n            while True: chunks.append(bytearray(16 * 1024 ** 2))"));
      if (session.kind !== "ok") throw new Error(session.message);
      expect((await session.value.reset(1)).kind).toBe("ok");
      const directories = sandbox.jailCgroupDirectories();
      if (!sandbox.cgroups.active) {
        // this machine does not let the supervisor create cgroups: reported, and jails run without one
        expect(sandbox.cgroups.detail.length).toBeGreaterThan(0);
        expect(directories).toEqual([]);
        return;
      }
      const memory = directories.find((directory) => existsSync(join(directory, sandbox.cgroups.active && sandbox.cgroups.version === "v1" ? "memory.limit_in_bytes" : "memory.max"))) as string;
      const limitFile = sandbox.cgroups.version === "v1" ? "memory.limit_in_bytes" : "memory.max";
      expect(Number(readFileSync(join(memory, limitFile), "utf8"))).toBe(jailMemoryBytes);
      const pids = directories.find((directory) => existsSync(join(directory, "pids.max"))) as string;
      expect(readFileSync(join(pids, "pids.max"), "utf8").trim()).toBe("77");
      const [jailPid] = sandbox.jailProcessIds();
      for (const directory of directories) expect(readFileSync(join(directory, "cgroup.procs"), "utf8").split("\n")).toContain(String(jailPid));
      const bomb = await session.value.step("bomb");
      expect(bomb.kind, JSON.stringify(bomb)).toBe("memory_limit");
      expect(bomb.kind !== "ok" && bomb.message).toContain("cgroup memory limit");
      expect((await session.value.reset(2)).kind).toBe("ok");
      expect((await session.value.step("calm")).kind).toBe("ok");
      // a process left inside the jail's cgroup (as an escaped episode would be) is killed when the jail goes
      const straggler = spawn("sleep", ["60"], { stdio: "ignore" });
      const exited = new Promise((resolve) => straggler.on("exit", (_code, signal) => resolve(signal)));
      for (const directory of directories) writeFileSync(join(directory, "cgroup.procs"), String(straggler.pid));
      await session.value.close();
      await sandbox.close();
      expect(await exited).toBe("SIGKILL");
      for (const directory of directories) expect(existsSync(directory)).toBe(false);
    } finally {
      await sandbox.close();
    }
  });
});
