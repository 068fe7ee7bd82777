import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { EnvProgram, EnvSession } from "../../spec/index.js";
import { loadPackageFolder, loadSeedPackages } from "../package-files/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { hostilePrograms } from "./hostile-programs.js";
import { descendantsOf, strayProcesses } from "./process-tree.js";

// Soak (issue 17), bounded in time: thousands of episodes mixing the seeds, broken fixtures and hostile
// programs through ONE sandbox; the supervisor's processes, file descriptors and memory do not grow.
// ENVFORGE_SOAK_SECONDS lengthens it (default 30 s after a warm-up round: about 1,500 episodes of 75 programs on 2 loaded cores).

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SECONDS = Number(process.env.ENVFORGE_SOAK_SECONDS ?? 30);
/** Episodes per opened session; every round opens (loads) and closes a session per program. */
const EPISODES_PER_SESSION = 10;
const BROKEN = ["crash-on-reset", "crash-on-text-action", "nan-reward", "huge-int-reward", "reward-above-range", "observation-not-string", "step-returns-four-values", "terminal-escapes-in-error", "state-leaks-across-episodes", "crash-on-import"];
/** Hostile programs that fail fast (the CPU- and clock-burning ones would make the soak a test of waiting). */
const SLOW = /loop|sleep|fork bomb|cpu|memory|allocat|hang|block|spin|wait/i;

function programs(): { name: string; program: EnvProgram; attack: "step" | "reset" | null }[] {
  const list: { name: string; program: EnvProgram; attack: "step" | "reset" | null }[] = loadSeedPackages().map((pkg) => ({
    name: `seed:${pkg.manifest.name}`,
    program: { envSource: pkg.envSource, oracleSource: null, rewardRange: pkg.manifest.rewardRange },
    attack: null,
  }));
  for (const name of BROKEN) {
    const pkg = loadPackageFolder(join(ROOT, "fixtures", "broken-envs", name));
    list.push({ name, program: { envSource: pkg.envSource, oracleSource: null, rewardRange: pkg.manifest.rewardRange }, attack: null });
  }
  for (const hostile of hostilePrograms(homedir(), join(ROOT, ".envforge-soak-marker"))) {
    if (SLOW.test(hostile.name) || ["timeout", "cpu_limit", "memory_limit"].includes(hostile.expected)) continue;
    list.push({ name: `hostile:${hostile.name}`, program: hostile.program, attack: hostile.phase });
  }
  return list;
}

/** One episode: reset, then a few actions (the attack for hostile programs); every outcome is a value. */
async function episode(session: EnvSession, attack: "step" | "reset" | null, seed: number): Promise<void> {
  const reset = await session.reset(attack === "reset" ? 666 : seed);
  if (reset.kind !== "ok") return;
  for (const action of attack === "step" ? ["attack", "wait"] : ["1", "Answer: 42", "test"]) {
    const step = await session.step(action);
    if (step.kind !== "ok" || step.value.terminated || step.value.truncated) return;
  }
}

function supervisor() {
  return { fds: readdirSync("/proc/self/fd").length, processes: descendantsOf(process.pid).length, rss: process.memoryUsage().rss };
}

describe("sandbox soak", () => {
  it(`plays over a thousand mixed episodes through one sandbox for ${SECONDS} s without growth of processes, file descriptors or memory`, async () => {
    const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000, cpuSeconds: 5, memoryBytes: 512 * 1024 * 1024 } });
    const all = programs();
    try {
      let episodes = 0;
      const round = async (seed: number) => {
        // a session per program per round: loads and unloads are soaked too
        for (const { program, attack } of all) {
          const opened = await sandbox.open(program);
          if (opened.kind !== "ok") continue;
          for (let index = 0; index < EPISODES_PER_SESSION; index += 1) {
            await episode(opened.value, attack, seed * EPISODES_PER_SESSION + index);
            episodes += 1;
          }
          await opened.value.close();
        }
      };
      await round(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = supervisor();
      const deadline = performance.now() + SECONDS * 1000;
      for (let seed = 1; performance.now() < deadline; seed += 1) await round(seed);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = supervisor();
      console.log(`soak: ${episodes} episodes of ${all.length} programs; supervisor before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
      // a floor that a loaded 2-core machine clears, so the growth checks below rest on many episodes
      expect(episodes).toBeGreaterThanOrEqual(30 * SECONDS);
      expect(strayProcesses(process.pid)).toEqual([]);
      expect(after.processes).toBeLessThanOrEqual(before.processes + 2);
      expect(after.fds).toBeLessThanOrEqual(before.fds + 4);
      expect(after.rss - before.rss).toBeLessThan(96 * 1024 * 1024);
    } finally {
      await sandbox.close();
    }
  }, 60_000 + SECONDS * 3000);
});
