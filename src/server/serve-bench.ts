import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { freePort } from "../support/free-port.js";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SEED_FOLDER } from "../adapters/package-files/index.js";
import { descendantsOf } from "../adapters/sandbox/process-tree.js";
import { ConfigError } from "../spec/index.js";
import { percentile } from "../support/percentile.js";
import { driveSessions, openSessions, type LoadSession } from "./load-generator.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OPENENV_PYTHON = join(ROOT, ".venv-openenv", "bin", "python");
const OPENENV_SERVER = join(ROOT, "scripts", "openenv-baseline-server.py");
const CLIENT_LOAD = join(ROOT, "scripts", "openenv-client-load.py");
/** OpenEnv's Python clients the client benchmark drives the servers with, each in its virtualenv from scripts/setup.sh. */
const OPENENV_CLIENTS = [
  { name: "openenv-core 0.3.0", python: join(ROOT, ".venv-openenv", "bin", "python") },
  { name: "openenv 0.10.0", python: join(ROOT, ".venv-openenv10", "bin", "python") },
] as const;

/** Options of {@link benchmarkServe}. */
export interface ServeBenchOptions {
  /** Seed environment played by both servers. @default "number-guess" */
  readonly environment?: string;
  /** Concurrent sessions of each throughput run. @default [64, 256, 1024] */
  readonly levels?: readonly number[];
  /** Seconds of each throughput run. @default 5 */
  readonly seconds?: number;
  /** Sessions held idle (reset, no step) for the memory figure. @default 256 */
  readonly idleSessions?: number;
  /** Mean pause before each step (uniform in [0.5, 1.5] × this), milliseconds; 0 = closed loop (full throughput). @default 0 */
  readonly thinkMs?: number;
  /** Also run openenv-core's own server as the baseline. @default true */
  readonly openenv?: boolean;
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
}

/** One throughput run. */
export interface ServeBenchLevel {
  /** Sessions asked for. */
  readonly sessions: number;
  /** Sessions that opened and answered their first reset. */
  readonly held: number;
  readonly steps: number;
  readonly stepsPerSecond: number;
  /** Step round trip p50 / p99, milliseconds. */
  readonly stepP50Ms: number;
  readonly stepP99Ms: number;
  /** Error frames and failed exchanges. */
  readonly errors: number;
}

/** What `envforge bench serve` measured. */
export interface ServeBenchResult {
  readonly environment: string;
  readonly seconds: number;
  /** Mean pause before each step, milliseconds (0 = closed loop). */
  readonly thinkMs: number;
  /** 1-minute load average at the start (the machine is shared). */
  readonly loadAverage: number;
  readonly envforge: readonly ServeBenchLevel[];
  /** The same runs against openenv-core's server, or null when not run. */
  readonly openenv: readonly ServeBenchLevel[] | null;
  /** Most sessions envforge held at once (largest run). */
  readonly sessionsHeld: number;
  /** envforge's step p99 at 256 sessions, milliseconds. */
  readonly stepP99MsAt256: number | null;
  /** envforge's steps/s at 256 sessions. */
  readonly stepsPerSecond: number | null;
  /** openenv-core's steps/s at 256 sessions. */
  readonly openenvStepsPerSecond: number | null;
  readonly stepsPerSecondVsOpenEnv: number | null;
  /** Memory one idle session (reset, waiting for a step) adds to the server and its jails: Δ PSS / sessions, bytes. */
  readonly idleSessionBytes: number;
  /** Mean private memory (USS) of one idle episode process, bytes. */
  readonly idleEpisodeProcessPrivateBytes: number;
  /** The same Δ PSS per idle session for openenv-core's server, bytes, or null. */
  readonly openenvIdleSessionBytes: number | null;
}

/** Memory of a process and its descendants from /proc: PSS sum and per-process private bytes. */
function treeMemory(rootPid: number): { pss: number; privates: { pid: number; bytes: number; commandLine: string }[] } {
  const pids = [{ pid: rootPid, commandLine: "" }, ...descendantsOf(rootPid)];
  let pss = 0;
  const privates: { pid: number; bytes: number; commandLine: string }[] = [];
  for (const { pid, commandLine } of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
      pss += field("Pss");
      privates.push({ pid, bytes: field("Private_Clean") + field("Private_Dirty"), commandLine });
    } catch {
      // exited while measured
    }
  }
  return { pss, privates };
}

/** Starts a server child and waits for its ready line. */
async function startChild(command: string, args: readonly string[], ready: RegExp, log: (line: string) => void): Promise<ChildProcess> {
  const child = spawn(command, [...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 60 s: ${output.slice(-2000)}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before it was ready: ${output.slice(-2000)}`));
    });
  });
  child.stderr?.on("data", (chunk: Buffer) => log(chunk.toString().trim()));
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}


const guess = (index: number, turn: number) => `Guess: ${((index * 7919 + turn * 131) % 1000) + 1}`;

/** Resets every session once; returns the sessions that answered with an observation. */
async function resetAll(sessions: readonly LoadSession[]): Promise<LoadSession[]> {
  const answers = await Promise.allSettled(sessions.map((session, index) => session.exchange({ type: "reset", data: { seed: index } })));
  return sessions.filter((_, index) => {
    const answer = answers[index];
    return answer?.status === "fulfilled" && answer.value.type === "observation";
  });
}

/** The runs against one server. */
async function runLevels(url: string, levels: readonly number[], seconds: number, thinkMs: number, log: (line: string) => void, name: string): Promise<ServeBenchLevel[]> {
  const results: ServeBenchLevel[] = [];
  for (const level of levels) {
    const opened = await openSessions(url, level);
    const held = await resetAll(opened);
    const run = await driveSessions(held, seconds, (index, episode) => ({ seed: index * 1000 + episode }), guess, thinkMs);
    for (const session of opened) session.close();
    const result: ServeBenchLevel = {
      sessions: level,
      held: held.length,
      steps: run.steps,
      stepsPerSecond: run.steps / run.seconds,
      stepP50Ms: percentile(run.stepLatenciesMs, 0.5),
      stepP99Ms: percentile(run.stepLatenciesMs, 0.99),
      errors: run.errors,
    };
    log(`${name} ${level} sessions: held ${result.held}, ${result.stepsPerSecond.toFixed(0)} steps/s, p50 ${result.stepP50Ms.toFixed(2)} ms, p99 ${result.stepP99Ms.toFixed(2)} ms, ${result.errors} errors`);
    results.push(result);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // let the closed sessions go
  }
  return results;
}

/** Δ PSS per session of `count` idle sessions (opened and reset, then left waiting), and the idle processes' private bytes. */
async function idleMemory(url: string, pid: number, count: number): Promise<{ perSession: number; episodePrivate: number }> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = treeMemory(pid);
  const sessions = await openSessions(url, count);
  const held = await resetAll(sessions);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const after = treeMemory(pid);
  const known = new Set(before.privates.map((entry) => entry.pid));
  const fresh = after.privates.filter((entry) => !known.has(entry.pid));
  for (const session of sessions) session.close();
  return {
    perSession: held.length === 0 ? 0 : (after.pss - before.pss) / held.length,
    episodePrivate: fresh.length === 0 ? 0 : fresh.reduce((sum, entry) => sum + entry.bytes, 0) / fresh.length,
  };
}

/**
 * `envforge bench serve`: envforge's server (`envforge serve` in a child process, the seed
 * environment in bwrap jails) and openenv-core's own server (`create_app` under uvicorn, the same
 * `env.py` in-process, one thread per session) driven by the same WebSocket load generator at 64,
 * 256 and 1,024 concurrent sessions, plus the memory an idle session costs each. Loopback only.
 *
 * @throws ConfigError when the environment is not a seed, or the OpenEnv baseline is asked for
 *   but `.venv-openenv` is missing (run scripts/setup.sh)
 */
export async function benchmarkServe(options: ServeBenchOptions = {}): Promise<ServeBenchResult> {
  const environment = options.environment ?? "number-guess";
  const levels = options.levels ?? [64, 256, 1024];
  const seconds = options.seconds ?? 5;
  const idleCount = options.idleSessions ?? 256;
  const withOpenEnv = options.openenv ?? true;
  const thinkMs = options.thinkMs ?? 0;
  const log = options.log ?? (() => undefined);
  const packageDir = join(SEED_FOLDER, environment);
  if (!existsSync(join(packageDir, "env.json"))) throw new ConfigError(`bench serve: no seed environment ${environment}`);
  if (withOpenEnv && !existsSync(OPENENV_PYTHON)) throw new ConfigError(`bench serve: ${OPENENV_PYTHON} is missing; run ./scripts/setup.sh (or pass --no-openenv)`);
  const capacity = Math.max(...levels, idleCount) + 64;
  const loadAverage = loadavg()[0] ?? 0;

  const folder = mkdtempSync(join(tmpdir(), "envforge-bench-serve-"));
  const configFile = join(folder, "config.json");
  writeFileSync(configFile, JSON.stringify({ serve: { rateLimitPerSecond: 1e9, rateLimitBurst: 1e9, drainTimeoutMs: 1000, capacity } }));
  let envforge: ServeBenchLevel[] = [];
  let memory = { perSession: 0, episodePrivate: 0 };
  let openenv: ServeBenchLevel[] | null = null;
  let openenvMemory: number | null = null;
  try {
    const port = await freePort();
    const server = await startChild(process.execPath, [join(ROOT, "bin", "envforge.js"), "serve", "--envs", packageDir, "--port", String(port), "--config", configFile], /envforge serve: \d+ environment/, log);
    try {
      const url = `http://127.0.0.1:${port}`;
      log(`envforge serve on ${url} (pid ${server.pid})`);
      memory = await idleMemory(url, server.pid as number, idleCount);
      envforge = await runLevels(url, levels, seconds, thinkMs, log, "envforge");
    } finally {
      await stopChild(server);
    }
    if (withOpenEnv) {
      const basePort = await freePort();
      const baseline = await startChild(OPENENV_PYTHON, [OPENENV_SERVER, packageDir, String(basePort), String(capacity)], /ready/, log);
      try {
        const url = `http://127.0.0.1:${basePort}`;
        log(`openenv-core server on ${url} (pid ${baseline.pid})`);
        openenvMemory = (await idleMemory(url, baseline.pid as number, idleCount)).perSession;
        openenv = await runLevels(url, levels, seconds, thinkMs, log, "openenv-core");
      } finally {
        await stopChild(baseline);
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const at256 = envforge.find((level) => level.sessions === 256) ?? null;
  const openenvAt256 = openenv?.find((level) => level.sessions === 256) ?? null;
  return {
    environment,
    seconds,
    thinkMs,
    loadAverage,
    envforge,
    openenv,
    sessionsHeld: Math.max(0, ...envforge.map((level) => level.held)),
    stepP99MsAt256: at256?.stepP99Ms ?? null,
    stepsPerSecond: at256?.stepsPerSecond ?? null,
    openenvStepsPerSecond: openenvAt256?.stepsPerSecond ?? null,
    stepsPerSecondVsOpenEnv: at256 !== null && openenvAt256 !== null && openenvAt256.stepsPerSecond > 0 ? at256.stepsPerSecond / openenvAt256.stepsPerSecond : null,
    idleSessionBytes: memory.perSession,
    idleEpisodeProcessPrivateBytes: memory.episodePrivate,
    openenvIdleSessionBytes: openenvMemory,
  };
}

/** The benchmark as text. */
export function formatServeBench(result: ServeBenchResult): string {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  const rows = (name: string, levels: readonly ServeBenchLevel[]) =>
    levels.map(
      (level) =>
        `  ${name.padEnd(12)} ${String(level.sessions).padStart(5)} sessions: held ${level.held}, ${level.stepsPerSecond.toFixed(0)} steps/s, step p50 ${level.stepP50Ms.toFixed(2)} ms, p99 ${level.stepP99Ms.toFixed(2)} ms${level.errors > 0 ? `, ${level.errors} errors` : ""}`,
    );
  return [
    `bench serve: ${result.environment}, ${result.seconds} s per run, ${result.thinkMs > 0 ? `think time ${result.thinkMs} ms per step` : "closed loop"}, load average ${result.loadAverage.toFixed(1)}`,
    ...rows("envforge", result.envforge),
    ...(result.openenv === null ? ["  openenv-core: not run"] : rows("openenv-core", result.openenv)),
    `  sessions held ${result.sessionsHeld}; idle session ${mib(result.idleSessionBytes)} (episode process private ${mib(result.idleEpisodeProcessPrivateBytes)})${result.openenvIdleSessionBytes === null ? "" : `; openenv-core idle session ${mib(result.openenvIdleSessionBytes)}`}`,
    `  steps/s at 256 sessions: envforge ${result.stepsPerSecond?.toFixed(0) ?? "-"}, openenv-core ${result.openenvStepsPerSecond?.toFixed(0) ?? "-"}, ratio ${result.stepsPerSecondVsOpenEnv?.toFixed(2) ?? "-"}; step p99 at 256: ${result.stepP99MsAt256?.toFixed(2) ?? "-"} ms`,
  ].join("\n");
}

/** One run of the client benchmark: a server driven by one of OpenEnv's Python clients. */
export interface ServeClientBenchRow {
  /** `envforge` or `openenv-core` (OpenEnv's own server, the same env.py in-process). */
  readonly server: string;
  /** The client and its version, as the load script read it from its virtualenv. */
  readonly client: string;
  readonly sessions: number;
  readonly steps: number;
  readonly stepsPerSecond: number;
  /** Step round trip through the client, p50 / p99, milliseconds. */
  readonly stepP50Ms: number;
  readonly stepP99Ms: number;
  /** Sessions that failed (the first failure is in `firstError`). */
  readonly errors: number;
  readonly firstError: string | null;
}

/**
 * `envforge bench serve --clients`: envforge's server and OpenEnv's own server (openenv-core's
 * `create_app`, the same seed `env.py` in-process) on number-guess, each driven for `seconds` by
 * `sessions` concurrent sessions of OpenEnv's own Python client (`GenericEnvClient`, async, one
 * Python process), once with openenv-core 0.3.0 and once with openenv 0.10.0. The Python client
 * is usually the bottleneck here, so these are the steps/s a Python trainer using OpenEnv's
 * client gets, not the servers' ceilings (the load-generator runs give those). Loopback only.
 *
 * @throws ConfigError when a client's virtualenv is missing (run scripts/setup.sh)
 */
export async function benchmarkServeClients(options: { sessions?: number; seconds?: number; log?: (line: string) => void } = {}): Promise<ServeClientBenchRow[]> {
  const sessions = options.sessions ?? 64;
  const seconds = options.seconds ?? 10;
  const log = options.log ?? (() => undefined);
  for (const client of [...OPENENV_CLIENTS, { name: "the OpenEnv baseline server", python: OPENENV_PYTHON }]) {
    if (!existsSync(client.python)) throw new ConfigError(`bench serve --clients: ${client.python} is missing (${client.name}); run ./scripts/setup.sh`);
  }
  const packageDir = join(SEED_FOLDER, "number-guess");
  const folder = mkdtempSync(join(tmpdir(), "envforge-bench-clients-"));
  const configFile = join(folder, "config.json");
  writeFileSync(configFile, JSON.stringify({ serve: { rateLimitPerSecond: 1e9, rateLimitBurst: 1e9, drainTimeoutMs: 1000, capacity: sessions + 64 } }));
  const rows: ServeClientBenchRow[] = [];
  const drive = async (server: string, url: string) => {
    for (const client of OPENENV_CLIENTS) {
      const child = spawn(client.python, [CLIENT_LOAD, url, String(sessions), String(seconds)], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      if (code !== 0) throw new Error(`${client.name} load against ${server} exited ${code}: ${stderr.slice(-2000)}`);
      const result = JSON.parse(stdout) as { client: string; steps: number; seconds: number; p50Ms: number; p99Ms: number; errors: number; firstError: string | null };
      const row = { server, client: result.client, sessions, steps: result.steps, stepsPerSecond: result.steps / result.seconds, stepP50Ms: result.p50Ms, stepP99Ms: result.p99Ms, errors: result.errors, firstError: result.firstError };
      log(`${server} with ${row.client}: ${row.stepsPerSecond.toFixed(0)} steps/s, p50 ${row.stepP50Ms.toFixed(2)} ms, p99 ${row.stepP99Ms.toFixed(2)} ms, ${row.errors} failed sessions`);
      rows.push(row);
    }
  };
  try {
    const port = await freePort();
    const server = await startChild(process.execPath, [join(ROOT, "bin", "envforge.js"), "serve", "--envs", packageDir, "--port", String(port), "--config", configFile], /envforge serve: \d+ environment/, log);
    try {
      await drive("envforge", `http://127.0.0.1:${port}`);
    } finally {
      await stopChild(server);
    }
    const basePort = await freePort();
    const baseline = await startChild(OPENENV_PYTHON, [OPENENV_SERVER, packageDir, String(basePort), String(sessions + 64)], /ready/, log);
    try {
      await drive("openenv-core", `http://127.0.0.1:${basePort}`);
    } finally {
      await stopChild(baseline);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return rows;
}

/** The client benchmark as text. */
export function formatServeClientBench(rows: readonly ServeClientBenchRow[], loadAverage: number): string {
  return [
    `bench serve --clients: number-guess, ${rows[0]?.sessions ?? 0} sessions of OpenEnv's Python client, load average ${loadAverage.toFixed(1)}`,
    ...rows.map((row) => `  ${row.server.padEnd(12)} ${row.client.padEnd(20)} ${row.stepsPerSecond.toFixed(0).padStart(6)} steps/s, step p50 ${row.stepP50Ms.toFixed(2)} ms, p99 ${row.stepP99Ms.toFixed(2)} ms${row.errors > 0 ? `, ${row.errors} failed sessions (${row.firstError})` : ""}`),
  ].join("\n");
}
