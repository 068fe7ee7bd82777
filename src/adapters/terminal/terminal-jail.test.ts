import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TerminalSession, TerminalTask } from "../../spec/index.js";
import { readHarborTask } from "./harbor-task.js";
import { TerminalJailRuntime } from "./terminal-jail.js";

// The terminal-specific hostile set: what an agent's commands try against the jail, the host and
// the verifier. Each runs in a real jail over the real root of the seed config-file.
const runtime = new TerminalJailRuntime({ maxOutputBytes: 4000 });
const scratch: string[] = [];
afterAll(async () => {
  await runtime.close();
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A temporary folder removed after the tests. */
function temporary(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(folder);
  return folder;
}

function task(overrides: Partial<TerminalTask> = {}): TerminalTask {
  const read = readHarborTask("envs/terminal-seeds/config-file");
  if ("status" in read) throw new Error(read.message);
  return { ...read, ...overrides };
}

async function open(overrides: Partial<TerminalTask> = {}): Promise<TerminalSession> {
  const opened = await runtime.open(task(overrides));
  if (opened.kind !== "ok") throw new Error(opened.message);
  return opened.value;
}

describe("terminal jail: hostile commands", () => {
  it("a fork bomb is held by the cgroup or the timeout, and the session goes on", async () => {
    const session = await open();
    const bomb = await session.run("bomb() { bomb | bomb & }; bomb", 5000);
    expect(bomb.exitCode === null || bomb.exitCode === 0).toBe(true);
    const after = await session.run("echo alive", 30_000);
    expect(after.output).toContain("alive");
    await session.close();
  }, 60_000);

  it("filling the disk stops at the task's storage limit", async () => {
    const session = await open({ storageMb: 32 });
    const fill = await session.run("dd if=/dev/zero of=/root/fill bs=1M count=200 2>&1; echo done", 20_000);
    expect(fill.output).toMatch(/No space left on device/);
    expect(await session.diskBytes()).toBeLessThanOrEqual(32 * 1024 * 1024);
    await session.close();
  }, 60_000);

  it("the network cannot be reached", async () => {
    const session = await open();
    const tcp = await session.run("exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED || echo refused", 10_000);
    expect(tcp.output).not.toContain("CONNECTED");
    const interfaces = await session.run("cat /proc/net/dev | tail -n +3 | cut -d: -f1", 5000);
    expect(interfaces.output.trim()).toBe("lo");
    await session.close();
  }, 60_000);

  it("the host's files are out of reach: no host path, no mount, no chroot, no namespace", async () => {
    const session = await open();
    const probe = await session.run(
      [
        `test -e ${process.cwd()}/package.json && echo HOST-VISIBLE || echo host-hidden`,
        "mount -t tmpfs none /mnt 2>/dev/null && echo MOUNTED || echo mount-refused",
        "chroot / true 2>/dev/null && echo CHROOTED || echo chroot-refused",
        "unshare -r true 2>/dev/null && echo UNSHARED || echo unshare-refused",
        "ls /proc/1/root/ >/dev/null 2>&1; cat /proc/1/cmdline | tr '\\0' ' '",
      ].join("; "),
      10_000,
    );
    expect(probe.output).toContain("host-hidden");
    expect(probe.output).toContain("mount-refused");
    expect(probe.output).toContain("chroot-refused");
    expect(probe.output).toContain("unshare-refused");
    expect(probe.output).not.toMatch(/HOST-VISIBLE|MOUNTED|CHROOTED|UNSHARED/);
    await session.close();
  }, 60_000);

  it("/proc/sys and /proc/sysrq-trigger are read-only (as root, the jail's uid 0 is the host's: core_pattern would run a host shell)", async () => {
    const session = await open();
    // opening for writing with nothing written: harmless where it is allowed, refused where the fix holds
    const probe = await session.run(
      [
        "( : > /proc/sys/kernel/core_pattern ) 2>/dev/null && echo CORE-PATTERN-WRITABLE || echo core-pattern-refused",
        "( : > /proc/sys/vm/drop_caches ) 2>/dev/null && echo SYSCTL-WRITABLE || echo sysctl-refused",
        "( : > /proc/sysrq-trigger ) 2>/dev/null && echo SYSRQ-WRITABLE || echo sysrq-refused",
      ].join("; "),
      10_000,
    );
    expect(probe.output).toContain("core-pattern-refused");
    expect(probe.output).toContain("sysctl-refused");
    expect(probe.output).toContain("sysrq-refused");
    await session.close();
  }, 60_000);

  it("writing the reward file directly, a background writer and swapped tools do not reach the reward", async () => {
    const session = await open();
    await session.run(
      [
        "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt",
        "(while true; do echo 1 > /logs/verifier/reward.txt 2>/dev/null; sleep 0.05; done) >/dev/null 2>&1 &",
        "printf '#!/bin/sh\\nexit 0\\n' > /usr/bin/grep; cp /usr/bin/true /usr/bin/sed",
        "echo /root/evil.so > /etc/ld.so.preload",
        "mkdir -p /tests && printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' > /tests/test.sh",
        // a cp that copies, then rewrites the tests (the verifier installs /tests with the base image's cp)
        "mv /usr/bin/cp /usr/bin/cp.real && printf '#!/bin/sh\\n/usr/bin/cp.real \"$@\"; printf \"#!/bin/bash\\\\necho 1 > /logs/verifier/reward.txt\\\\n\" > /tests/test.sh 2>/dev/null\\nexit 0\\n' > /usr/bin/cp && chmod +x /usr/bin/cp",
      ].join("; "),
      10_000,
    );
    const verification = await session.verify();
    expect(verification.reward).toBe(0);
    expect(verification.output).toContain("FAIL");
    await session.close();
  }, 60_000);

  it("the tests use the base image's tools even when the agent re-points /etc/alternatives", async () => {
    const tests = temporary("envforge-tests-");
    writeFileSync(join(tests, "test.sh"), "#!/bin/bash\nawk 'BEGIN { print 0 }' > /logs/verifier/reward.txt\n");
    const session = await open({ testsDir: tests });
    await session.run("printf '#!/bin/sh\\necho 1\\n' > /root/fake && chmod +x /root/fake && ln -sf /root/fake /etc/alternatives/awk && awk 'BEGIN { print 0 }'", 5000);
    const verification = await session.verify();
    await session.close();
    rmSync(tests, { recursive: true, force: true });
    expect(verification.reward).toBe(0);
  }, 60_000);

  it("a link the agent plants where the jail used to write its command file reaches no host file", async () => {
    const victim = join(temporary("envforge-victim-"), "victim.txt");
    writeFileSync(victim, "host data\n");
    const session = await open();
    await session.run(`mkdir -p /run/envforge && ln -sf ${victim} /run/envforge/command; ln -sf ${victim} /run/envforge-io`, 5000);
    const after = await session.run("echo overwritten?", 5000);
    expect(after.output).toContain("overwritten?");
    await session.close();
    expect(readFileSync(victim, "utf8")).toBe("host data\n");
  }, 60_000);

  it("a COPY onto a link that a set-up RUN planted stays inside the root", async () => {
    const victim = join(temporary("envforge-victim-"), "victim.txt");
    writeFileSync(victim, "host data\n");
    const environment = temporary("envforge-env-");
    mkdirSync(join(environment, "d"));
    writeFileSync(join(environment, "d", "f"), "from the task\n");
    const opened = await runtime.open(task({ setup: [{ kind: "run", command: `mkdir -p /app/d && ln -s ${victim} /app/d/f`, workdir: "/" }, { kind: "copy", from: join(environment, "d"), to: "/app/d" }] }));
    // the copy runs in the jail, where the link dangles: cp refuses to write through it and set-up fails
    expect(opened.kind !== "ok" && opened.message).toMatch(/dangling symlink/);
    expect(readFileSync(victim, "utf8")).toBe("host data\n");
  }, 60_000);

  it("tests killed by a signal, tests past their limit, and a /logs the agent replaced give no reward, not an error", async () => {
    const tests = temporary("envforge-tests-");
    writeFileSync(join(tests, "test.sh"), "#!/bin/bash\nmake -C /app >/dev/null 2>&1\necho 0 > /logs/verifier/reward.txt\n");
    const killed = await open({ testsDir: tests, image: { suite: "bookworm", packages: ["gcc", "libc6-dev", "make"] } });
    await killed.run("printf 'all:\\n\\t@echo 1 > /logs/verifier/reward.txt; kill -9 -1\\n' > /app/Makefile", 5000);
    const hacked = await killed.verify();
    await killed.close();
    expect(hacked.reward).toBeNull();
    expect(hacked.rewardError).toMatch(/killed by a signal/);

    writeFileSync(join(tests, "test.sh"), "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\nsleep 60\n");
    const slow = await open({ testsDir: tests, verifierTimeoutSec: 2 });
    const late = await slow.verify();
    await slow.close();
    expect(late.reward).toBeNull();
    expect(late.rewardError).toMatch(/past their 2 s limit/);

    writeFileSync(join(tests, "test.sh"), "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n");
    const replaced = await open({ testsDir: tests });
    await replaced.run("rm -rf /logs && ln -s /etc /logs", 5000);
    const verification = await replaced.verify();
    await replaced.close();
    expect(verification.reward).toBe(1);
    rmSync(tests, { recursive: true, force: true });
  }, 180_000);

  it("clone with a namespace flag is refused as unshare is (a new user namespace would hold every capability)", async () => {
    const session = await open();
    const probe = await session.run(`perl -e '$r = syscall(56, 0x10000000 | 17, 0, 0, 0, 0); if ($r == 0) { exit 0 } print $r < 0 ? "refused: $!" : "CREATED"'`, 10_000);
    await session.close();
    expect(probe.output).toMatch(/refused: Operation not permitted/);
  }, 60_000);

  it("an image that does not build is the task's failure outcome, not an exception", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "envforge-roots-"));
    const unreachable = new TerminalJailRuntime({ cacheDir, mirror: "http://127.0.0.1:9/debian" });
    const opened = await unreachable.open(task());
    await unreachable.close();
    rmSync(cacheDir, { recursive: true, force: true });
    expect(opened.kind).toBe("crash");
    expect(opened.kind !== "ok" && opened.message).toMatch(/image could not be built/);
  }, 120_000);

  it("sessions past maxSessions are refused until one closes", async () => {
    const small = new TerminalJailRuntime({ maxSessions: 2 });
    const first = await small.open(task());
    const second = await small.open(task());
    const third = await small.open(task());
    expect([first.kind, second.kind, third.kind]).toEqual(["ok", "ok", "forbidden"]);
    if (first.kind === "ok") await first.value.close();
    const again = await small.open(task());
    expect(again.kind).toBe("ok");
    await small.close();
  }, 60_000);

  it("a task that asks for the network is refused unless the operator allows it", async () => {
    const opened = await runtime.open(task({ network: true }));
    expect(opened.kind).toBe("forbidden");
    expect(opened.kind !== "ok" && opened.message).toMatch(/loopback/);
  });

  it("a command that never ends is killed at its timeout and the shell restarts with the files kept", async () => {
    const session = await open();
    await session.run("echo kept > /root/file; cd /tmp", 5000);
    const hung = await session.run("sleep 600", 1000);
    expect(hung.timedOut).toBe(true);
    expect(hung.shellRestarted).toBe(true);
    const after = await session.run("pwd; cat /root/file", 5000);
    expect(after.output).toBe("/app\nkept\n");
    await session.close();
  }, 60_000);

  it("a flood of output keeps its head and tail and says the middle was cut", async () => {
    const session = await open();
    const flood = await session.run("seq 1 200000", 10_000);
    expect(flood.truncated).toBe(true);
    expect(flood.output.length).toBeLessThan(4200);
    expect(flood.output).toMatch(/^1\n2\n/);
    expect(flood.output).toMatch(/output truncated: \d+ bytes/);
    expect(flood.output.trimEnd().endsWith("200000")).toBe(true);
    await session.close();
  }, 60_000);

  it("an episode's files do not leak into the next one (each root is fresh)", async () => {
    const first = await open();
    await first.run("echo secret > /root/leak", 5000);
    await first.close();
    const second = await open();
    const look = await second.run("cat /root/leak 2>&1 || true", 5000);
    expect(look.output).toContain("No such file");
    await second.close();
  }, 60_000);
});

describe("terminal jail: a stored task plays the files it was read with", () => {
  it("refuses a task whose folder changed or is gone since it was read, naming the folder", async () => {
    const folder = join(temporary("envforge-edited-task-"), "config-file");
    cpSync("envs/terminal-seeds/config-file", folder, { recursive: true });
    const read = readHarborTask(folder) as TerminalTask;
    writeFileSync(join(folder, "environment", "extra.txt"), "added after the task was read\n");
    const edited = await runtime.open(read);
    expect(edited.kind).toBe("crash");
    expect(edited.kind !== "ok" && edited.message).toMatch(/the files in .*config-file changed since the task was read/);
    rmSync(folder, { recursive: true });
    const gone = await runtime.open(read);
    expect(gone.kind !== "ok" && gone.message).toMatch(/its task folder .*config-file cannot be read/);
    // a task built by hand (no digest) is not checked
    expect((await runtime.open({ ...task(), filesDigest: undefined })).kind).toBe("ok");
  });
});
