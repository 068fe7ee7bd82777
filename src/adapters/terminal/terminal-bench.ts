import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { freemem, tmpdir } from "node:os";
import { join } from "node:path";
import type { TerminalSession, TerminalTask } from "../../spec/index.js";
import { percentile } from "../../support/percentile.js";
import { ensureRoot } from "./root-filesystem.js";
import { TerminalJailRuntime } from "./terminal-jail.js";

/** What `envforge bench terminal` measures (milliseconds unless named otherwise). */
export interface TerminalBenchReport {
  readonly task: string;
  /** A fresh mmdebstrap build of the task's image into an empty cache (null when not asked, `--build`). */
  readonly firstBuildMs: number | null;
  /** Opening a session on the cached root (mounts, set-up steps, shell not yet started), then closing it: p50 and p90. */
  readonly episodeStartMs: { readonly p50: number; readonly p90: number; readonly runs: number };
  /** One `true` in the jail's persistent shell vs `bash -c true` spawned on the host: p50 each. */
  readonly commandRoundTripMs: { readonly jail: number; readonly hostBashC: number; readonly runs: number };
  /** Bytes on a session's disk after set-up, and after the oracle's solve.sh. */
  readonly diskBytes: { readonly afterSetup: number; readonly afterOracle: number };
  /** Sessions opened and held at once (each answered a command), the time to open them, and the host memory they took (MiB). */
  readonly sessionsHeld: { readonly asked: number; readonly held: number; readonly openMs: number; readonly memoryMb: number };
}

async function openOrThrow(runtime: TerminalJailRuntime, task: TerminalTask): Promise<TerminalSession> {
  const opened = await runtime.open(task);
  if (opened.kind !== "ok") throw new Error(`${task.name}: ${opened.message}`);
  return opened.value;
}

/**
 * Measures the terminal runtime on `task` (the seed config-file by default in the CLI): the first
 * root build (with `build`), episode start on the cached root, command round trip against
 * `bash -c` on the host, disk per session, and `sessions` sessions held at once.
 */
export async function benchTerminal(task: TerminalTask, options: { readonly runs: number; readonly sessions: number; readonly build: boolean }): Promise<TerminalBenchReport> {
  let firstBuildMs: number | null = null;
  if (options.build) {
    const cacheDir = mkdtempSync(join(tmpdir(), "envforge-roots-"));
    try {
      const started = performance.now();
      await ensureRoot(task.image, { cacheDir });
      firstBuildMs = Math.round(performance.now() - started);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }
  const runtime = new TerminalJailRuntime();
  try {
    await ensureRoot(task.image);
    const starts: number[] = [];
    for (let run = 0; run < options.runs; run += 1) {
      const started = performance.now();
      const session = await openOrThrow(runtime, task);
      await session.close();
      starts.push(performance.now() - started);
    }
    const session = await openOrThrow(runtime, task);
    await session.run("true", 5000);
    const jail: number[] = [];
    for (let run = 0; run < options.runs; run += 1) {
      const started = performance.now();
      await session.run("true", 5000);
      jail.push(performance.now() - started);
    }
    const host: number[] = [];
    for (let run = 0; run < options.runs; run += 1) {
      const started = performance.now();
      spawnSync("bash", ["-c", "true"]);
      host.push(performance.now() - started);
    }
    const afterSetup = await session.diskBytes();
    let afterOracle = afterSetup;
    if (task.solutionDir !== null) {
      await session.copyIn(task.solutionDir, "/solution");
      await session.run("bash /solution/solve.sh", 60_000);
      afterOracle = await session.diskBytes();
    }
    await session.close();
    const freeBefore = freemem();
    const started = performance.now();
    const held: TerminalSession[] = [];
    for (let index = 0; index < options.sessions; index += 1) {
      const opened = await runtime.open(task);
      if (opened.kind !== "ok") break;
      const answer = await opened.value.run("echo held", 10_000);
      held.push(opened.value);
      if (!answer.output.includes("held")) break;
    }
    const openMs = Math.round(performance.now() - started);
    const memoryMb = Math.max(0, Math.round((freeBefore - freemem()) / 1024 / 1024));
    await Promise.all(held.map((one) => one.close()));
    const round = (value: number) => Math.round(value * 100) / 100;
    return {
      task: task.name,
      firstBuildMs,
      episodeStartMs: { p50: round(percentile(starts, 0.5)), p90: round(percentile(starts, 0.9)), runs: options.runs },
      commandRoundTripMs: { jail: round(percentile(jail, 0.5)), hostBashC: round(percentile(host, 0.5)), runs: options.runs },
      diskBytes: { afterSetup, afterOracle },
      sessionsHeld: { asked: options.sessions, held: held.length, openMs, memoryMb },
    };
  } finally {
    await runtime.close();
  }
}
