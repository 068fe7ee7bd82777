import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { EnvProgram, EnvSession, SandboxOutcome } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { encodeFrame, FrameDecoder } from "./frames.js";
import { descendantsOf, proportionalBytes } from "./process-tree.js";
import { percentile } from "../../support/percentile.js";

/** Path of the unisolated baseline driver. */
const UNISOLATED_PATH = fileURLToPath(new URL("./bench-unisolated.py", import.meta.url));

/** An environment the benchmark plays (its oracle picks the actions). */
export interface BenchEnvironment {
  readonly name: string;
  readonly program: EnvProgram;
}

/** Options of {@link benchmarkSandbox}. */
export interface SandboxBenchOptions {
  /** Episodes per environment for latency. @default 5 */
  readonly episodes?: number;
  /** Steps per episode at most. @default 20 */
  readonly maxSteps?: number;
  /** Spawn-per-call samples (a fresh jail and interpreter per episode). @default 8 */
  readonly spawnSamples?: number;
  /** Seconds of each throughput run. @default 3 */
  readonly throughputSeconds?: number;
  /** Clock in nanoseconds. @default process.hrtime.bigint */
  readonly now?: () => bigint;
}

/** p50 and p99 in microseconds. */
export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
}

/** Throughput of one worker count. */
export interface Throughput {
  readonly workers: number;
  readonly episodesPerSecond: number;
  readonly stepsPerSecond: number;
}

/** What `envforge bench sandbox` prints (microseconds unless named otherwise). */
export interface SandboxBenchResult {
  readonly machine: { readonly cpus: number; readonly loadAverage1m: number };
  readonly environments: readonly string[];
  /** `idleJailBytes`: proportional set size (PSS) of one jail with every environment loaded and its spare episode processes forked. */
  readonly sandbox: { readonly episodeStartUs: Percentiles; readonly stepUs: Percentiles; readonly idleJailBytes: number };
  readonly unisolated: { readonly episodeStartUs: Percentiles; readonly stepUs: Percentiles; readonly inProcessStepUs: Percentiles };
  readonly spawnPerCall: { readonly episodeStartUs: Percentiles };
  readonly throughput: readonly Throughput[];
  /** sandbox step p50 / unisolated step p50 (target ≤ 3). */
  readonly stepVsUnisolated: number;
  /** spawn-per-call episode start p50 / sandbox episode start p50 (target ≥ 10). */
  readonly episodeStartVsSpawn: number;
  readonly targets: { readonly stepP50Within300Us: boolean; readonly stepWithin3xUnisolated: boolean; readonly episodeStart10xFasterThanSpawn: boolean };
}

/** p50/p99 of samples (nearest rank). */
export function percentiles(samples: readonly number[]): Percentiles {
  return { p50: round(percentile(samples, 0.5)), p99: round(percentile(samples, 0.99)), samples: samples.length };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function unwrap<T>(outcome: SandboxOutcome<T>, what: string): T {
  if (outcome.kind !== "ok") throw new Error(`${what}: ${outcome.kind}: ${outcome.message}`);
  return outcome.value;
}

interface Recorded {
  readonly environment: number;
  readonly seed: number;
  readonly actions: string[];
}

/** Plays the recorded action sequences in one session per environment; returns timings. */
async function replay(sessions: readonly EnvSession[], episodes: readonly Recorded[], now: () => bigint, starts: number[], steps: number[]) {
  for (const episode of episodes) {
    const session = sessions[episode.environment] as EnvSession;
    let start = now();
    unwrap(await session.reset(episode.seed), "reset");
    starts.push(Number(now() - start) / 1000);
    for (const action of episode.actions) {
      start = now();
      unwrap(await session.step(action), "step");
      steps.push(Number(now() - start) / 1000);
    }
  }
}

/** A plain Python process running the environments unisolated (the baseline of exec-in-a-thread peers). */
class UnisolatedPython {
  private readonly child = spawn("/usr/bin/python3", ["-S", "-s", "-P", "-B", UNISOLATED_PATH], { stdio: ["pipe", "pipe", "inherit"], env: { PYTHONHASHSEED: "0" } });
  private readonly decoder = new FrameDecoder(64 * 1024 * 1024);
  private waiting: ((value: Record<string, unknown>) => void) | null = null;

  constructor() {
    this.child.stdout.on("data", (chunk: Buffer) => {
      for (const event of this.decoder.push(chunk)) if (event.kind === "frame") this.waiting?.(event.value as Record<string, unknown>);
    });
  }

  call(request: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.child.stdin.write(encodeFrame(request));
    });
  }

  close(): void {
    this.child.kill("SIGKILL");
  }
}

async function throughput(environments: readonly BenchEnvironment[], recorded: readonly Recorded[], workers: number, seconds: number): Promise<Throughput> {
  const sandbox = new BwrapSandbox({ workers });
  try {
    const loops = await Promise.all(
      Array.from({ length: workers }, async () => {
        const sessions = await Promise.all(environments.map(async (environment) => unwrap(await sandbox.open(environment.program), environment.name)));
        return sessions;
      }),
    );
    const deadline = Date.now() + seconds * 1000;
    const counts = await Promise.all(
      loops.map(async (sessions) => {
        let episodes = 0;
        let steps = 0;
        while (Date.now() < deadline) {
          for (const episode of recorded) {
            const session = sessions[episode.environment] as EnvSession;
            unwrap(await session.reset(episode.seed), "reset");
            for (const action of episode.actions) unwrap(await session.step(action), "step");
            episodes += 1;
            steps += episode.actions.length;
            if (Date.now() >= deadline) break;
          }
        }
        return { episodes, steps };
      }),
    );
    const total = counts.reduce((sum, count) => ({ episodes: sum.episodes + count.episodes, steps: sum.steps + count.steps }), { episodes: 0, steps: 0 });
    return { workers, episodesPerSecond: round(total.episodes / seconds), stepsPerSecond: round(total.steps / seconds) };
  } finally {
    await sandbox.close();
  }
}

/**
 * Measures the bwrap sandbox side by side with (a) the same environments run
 * unisolated in one Python process and (b) a fresh jail and interpreter per
 * episode (spawn per call): episode start and step round trip (p50/p99),
 * episodes/s and steps/s with 1 and 2 workers, idle memory of a jail with the
 * environments loaded. Actions come from each environment's oracle, recorded
 * once and replayed identically everywhere.
 *
 * @throws SandboxUnavailableError when bubblewrap cannot start; Error when an environment fails during the run
 */
export async function benchmarkSandbox(environments: readonly BenchEnvironment[], options: SandboxBenchOptions = {}): Promise<SandboxBenchResult> {
  const now = options.now ?? (() => process.hrtime.bigint());
  const episodes = options.episodes ?? 5;
  const maxSteps = options.maxSteps ?? 20;

  // 1. record oracle episodes in the sandbox (also warms the jail)
  const sandbox = new BwrapSandbox();
  const recorded: Recorded[] = [];
  let idleJailBytes = 0;
  const sandboxStarts: number[] = [];
  const sandboxSteps: number[] = [];
  try {
    const sessions = await Promise.all(environments.map(async (environment) => unwrap(await sandbox.open(environment.program), environment.name)));
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the zygote fork its spares
    const [jailPid] = sandbox.jailProcessIds();
    if (jailPid !== undefined) {
      idleJailBytes = [jailPid, ...descendantsOf(jailPid).map((entry) => entry.pid)].reduce((sum, pid) => sum + proportionalBytes(pid), 0);
    }
    for (const [index, session] of sessions.entries()) {
      for (let episode = 0; episode < episodes; episode += 1) {
        const seed = 1000 + episode;
        let observation = unwrap(await session.reset(seed), "reset");
        const actions: string[] = [];
        for (let step = 0; step < maxSteps; step += 1) {
          const action = unwrap(await session.oracleAction(observation), "oracle");
          if (typeof action !== "string") throw new Error("the sandbox benchmark plays text environments (the seeds); this oracle answered a tool call");
          actions.push(action);
          const result = unwrap(await session.step(action), "step");
          observation = result.observation;
          if (result.terminated || result.truncated) break;
        }
        recorded.push({ environment: index, seed, actions });
      }
    }
    // 2. timed replay in the sandbox
    await replay(sessions, recorded, now, sandboxStarts, sandboxSteps);
  } finally {
    await sandbox.close();
  }

  // 3. the same episodes unisolated
  const python = new UnisolatedPython();
  const unisolatedStarts: number[] = [];
  const unisolatedSteps: number[] = [];
  const inProcess: number[] = [];
  try {
    const ids: number[] = [];
    for (const environment of environments) ids.push((await python.call({ op: "load", env: environment.program.envSource })).id as number);
    for (const episode of recorded) {
      let start = now();
      await python.call({ op: "reset", id: ids[episode.environment], seed: episode.seed });
      unisolatedStarts.push(Number(now() - start) / 1000);
      for (const action of episode.actions) {
        start = now();
        const reply = await python.call({ op: "step", action });
        unisolatedSteps.push(Number(now() - start) / 1000);
        inProcess.push((reply.inProcessNs as number) / 1000);
      }
    }
  } finally {
    python.close();
  }

  // 4. spawn per call: a fresh jail and interpreter per episode start
  const spawnStarts: number[] = [];
  for (let sample = 0; sample < (options.spawnSamples ?? 8); sample += 1) {
    const environment = environments[sample % environments.length] as BenchEnvironment;
    const fresh = new BwrapSandbox();
    try {
      const start = now();
      const session = unwrap(await fresh.open(environment.program), environment.name);
      unwrap(await session.reset(1000), "reset");
      spawnStarts.push(Number(now() - start) / 1000);
    } finally {
      await fresh.close();
    }
  }

  // 5. throughput with 1 and 2 workers
  const seconds = options.throughputSeconds ?? 3;
  const rates = [await throughput(environments, recorded, 1, seconds), await throughput(environments, recorded, 2, seconds)];

  const sandboxStep = percentiles(sandboxSteps);
  const unisolatedStep = percentiles(unisolatedSteps);
  const sandboxStart = percentiles(sandboxStarts);
  const spawnStart = percentiles(spawnStarts);
  const stepVsUnisolated = round((sandboxStep.p50 / unisolatedStep.p50) * 10) / 10;
  const episodeStartVsSpawn = round(spawnStart.p50 / sandboxStart.p50);
  return {
    machine: { cpus: cpus().length, loadAverage1m: round(loadavg()[0] ?? 0) },
    environments: environments.map((environment) => environment.name),
    sandbox: { episodeStartUs: sandboxStart, stepUs: sandboxStep, idleJailBytes },
    unisolated: { episodeStartUs: percentiles(unisolatedStarts), stepUs: unisolatedStep, inProcessStepUs: percentiles(inProcess) },
    spawnPerCall: { episodeStartUs: spawnStart },
    throughput: rates,
    stepVsUnisolated,
    episodeStartVsSpawn,
    targets: {
      stepP50Within300Us: sandboxStep.p50 <= 300,
      stepWithin3xUnisolated: stepVsUnisolated <= 3,
      episodeStart10xFasterThanSpawn: episodeStartVsSpawn >= 10,
    },
  };
}

/** Human-readable report of a {@link benchmarkSandbox} result. */
export function formatSandboxBench(result: SandboxBenchResult): string {
  const p = (value: Percentiles) => `p50 ${value.p50} µs, p99 ${value.p99} µs (n=${value.samples})`;
  return [
    `machine: ${result.machine.cpus} CPUs, load average ${result.machine.loadAverage1m}; environments: ${result.environments.length}`,
    `sandbox (bwrap zygote)   episode start ${p(result.sandbox.episodeStartUs)}; step ${p(result.sandbox.stepUs)}`,
    `unisolated Python        episode start ${p(result.unisolated.episodeStartUs)}; step ${p(result.unisolated.stepUs)}; in-process step ${p(result.unisolated.inProcessStepUs)}`,
    `spawn per call           episode start ${p(result.spawnPerCall.episodeStartUs)}`,
    ...result.throughput.map((rate) => `throughput, ${rate.workers} worker(s): ${rate.episodesPerSecond} episodes/s, ${rate.stepsPerSecond} steps/s`),
    `idle memory per jail (PSS, ${result.environments.length} environments loaded, spares forked): ${(result.sandbox.idleJailBytes / 1024 / 1024).toFixed(1)} MiB`,
    `stepVsUnisolated ${result.stepVsUnisolated} (target ≤ 3: ${result.targets.stepWithin3xUnisolated ? "met" : "MISSED"}); step p50 ≤ 300 µs: ${result.targets.stepP50Within300Us ? "met" : "MISSED"}`,
    `episodeStartVsSpawn ${result.episodeStartVsSpawn} (target ≥ 10: ${result.targets.episodeStart10xFasterThanSpawn ? "met" : "MISSED"})`,
  ].join("\n");
}
