import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PgBossQueue } from "../adapters/jobs/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { redactedUrl, startThrowawayCluster } from "../adapters/store/index.js";
import { admissionConcurrency, admit } from "../core/admission/index.js";
import { ConfigError, type EnvPackage, type JobOutcome } from "../spec/index.js";
import { mapWithConcurrency } from "../support/concurrency.js";
import { admissionJobKey, admissionPayload } from "./admission-jobs.js";
import { buildAdmissionPipeline, FIXTURE_LABEL_FILE, resolveAdmitConfig } from "./admit-command.js";
import { loadCandidate } from "./load-candidate.js";

/** Flags of `envforge bench jobs`. */
export interface BenchJobsFlags {
  readonly json?: boolean;
  /** Comma-separated worker counts. @default "1,2,4" */
  readonly workers?: string;
  /** Broken-environment fixtures admitted beside the ten seeds. @default 10 */
  readonly fixtures?: number;
  readonly store?: string;
}

/** One row of the benchmark: admissions per minute in one set-up. */
export interface JobsFigure {
  readonly setup: string;
  readonly admissions: number;
  readonly seconds: number;
  readonly perMinute: number;
  /** Mean seconds one admission's gates took. */
  readonly meanAdmissionSeconds: number;
  /**
   * Queue and store time per admission over the admission's own time: the mean gap on a worker
   * between storing one result and starting the next job (acknowledge, claim, result check, store),
   * plus the enqueue time per job, over the mean admission seconds. Null in-process.
   */
  readonly overheadRatio: number | null;
}

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));
const FIXTURES = "fixtures/broken-envs";

/**
 * `envforge bench jobs`: the same admissions (the ten seeds and the first `--fixtures` broken
 * fixtures, mechanical gates) in this process at `admission.concurrency`, then on 1, 2 and 4
 * `envforge worker` processes through the job queue on a throwaway PostgreSQL cluster; prints
 * admissions per minute and the queue's overhead per admission. Recorded in
 * docs/benchmarks/scale-out.md.
 * @throws ConfigError for a bad `--workers` list
 */
export async function benchJobsCommand(flags: BenchJobsFlags): Promise<number> {
  const counts = (flags.workers ?? "1,2,4").split(",").map((value) => Number(value.trim()));
  if (counts.some((count) => !Number.isInteger(count) || count < 1 || count > 32)) throw new ConfigError(`--workers must list worker counts from 1 to 32, got ${flags.workers}`);
  const config = resolveAdmitConfig({});
  const seeds = loadSeedPackages();
  const fixtures = existsSync(FIXTURES)
    ? readdirSync(FIXTURES)
        .filter((name) => existsSync(join(FIXTURES, name, FIXTURE_LABEL_FILE)))
        .sort()
        .map((name) => loadCandidate(join(FIXTURES, name)))
        .flatMap((loaded) => ("package" in loaded ? [loaded.package] : []))
        .slice(0, flags.fixtures ?? 10)
    : [];
  const candidates: EnvPackage[] = [...seeds, ...fixtures];
  const figures: JobsFigure[] = [];

  // in this process, as `admit --eval` does
  const pipeline = await buildAdmissionPipeline(config, {}, null);
  try {
    const seconds: number[] = [];
    const started = performance.now();
    await mapWithConcurrency(candidates, admissionConcurrency(config.admission), async (candidate) => {
      const began = performance.now();
      await admit(candidate, pipeline.gates, { ...pipeline.context, pool: seeds });
      seconds.push((performance.now() - began) / 1000);
    });
    const wall = (performance.now() - started) / 1000;
    figures.push({ setup: `in-process, admission.concurrency ${admissionConcurrency(config.admission)}`, admissions: candidates.length, seconds: wall, perMinute: (candidates.length / wall) * 60, meanAdmissionSeconds: mean(seconds), overheadRatio: null });
  } finally {
    await pipeline.close();
  }

  const cluster = flags.store === undefined ? await startThrowawayCluster() : null;
  const url = flags.store ?? cluster!.url;
  const folder = mkdtempSync(join(tmpdir(), "envforge-bench-jobs-"));
  try {
    for (const count of counts) {
      const namespace = `bench${process.pid}w${count}t${Date.now() % 100_000}`;
      const file = join(folder, `${namespace}.json`);
      writeFileSync(file, JSON.stringify({ jobs: { namespace, heartbeatSeconds: 30 } }));
      const workers = Array.from({ length: count }, () => startWorker(url, file));
      const queue = await PgBossQueue.open(url, { namespace });
      try {
        await until(() => workers.every((worker) => worker.log().includes("taking admission jobs")), 120_000);
        const payloads = candidates.map((candidate) => admissionPayload(candidate, seeds, config, {}));
        const keys = payloads.map((payload) => admissionJobKey(payload, namespace));
        const started = performance.now();
        await queue.enqueue("admission", payloads.map((payload, index) => ({ key: keys[index]!, payload })));
        const enqueueSeconds = (performance.now() - started) / 1000;
        const outcomes = await queue.wait("admission", keys, { pollMs: 100 });
        const wall = (performance.now() - started) / 1000;
        const done = [...outcomes.values()].filter((outcome): outcome is Extract<JobOutcome, { state: "done" }> => outcome.state === "done");
        const admissionSeconds = mean(done.map((outcome) => outcome.seconds));
        figures.push({
          setup: `${count} worker${count === 1 ? "" : "s"} (envforge worker processes)`,
          admissions: done.length,
          seconds: wall,
          perMinute: (done.length / wall) * 60,
          meanAdmissionSeconds: admissionSeconds,
          overheadRatio: (meanGap(done) + enqueueSeconds / keys.length) / admissionSeconds,
        });
      } finally {
        await queue.close();
        for (const worker of workers) worker.stop();
        await Promise.all(workers.map((worker) => worker.exited));
      }
    }
  } finally {
    cluster?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  const where = cluster === null ? redactedUrl(url) : "a throwaway PostgreSQL cluster on this machine";
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify({ candidates: candidates.length, postgres: where, figures }, null, 2)}\n`);
  } else {
    process.stdout.write(`admission of ${candidates.length} candidates (the ten seeds and ${fixtures.length} broken fixtures; mechanical gates), queue on ${where}\n`);
    process.stdout.write("| set-up | admissions | seconds | admissions/min | mean admission s | queue+store overhead |\n| --- | --- | --- | --- | --- | --- |\n");
    for (const figure of figures) {
      process.stdout.write(`| ${figure.setup} | ${figure.admissions} | ${figure.seconds.toFixed(1)} | ${figure.perMinute.toFixed(1)} | ${figure.meanAdmissionSeconds.toFixed(2)} | ${figure.overheadRatio === null ? "n/a" : `${(figure.overheadRatio * 100).toFixed(2)} %`} |\n`);
    }
  }
  return 0;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Mean seconds on one worker between storing a result and starting its next job. */
function meanGap(outcomes: readonly Extract<JobOutcome, { state: "done" }>[]): number {
  const gaps: number[] = [];
  const byWorker = new Map<string, { start: number; end: number }[]>();
  for (const outcome of outcomes) {
    const end = Date.parse(outcome.storedAt) / 1000;
    byWorker.set(outcome.worker, [...(byWorker.get(outcome.worker) ?? []), { start: end - outcome.seconds, end }]);
  }
  for (const runs of byWorker.values()) {
    runs.sort((a, b) => a.start - b.start);
    for (let index = 1; index < runs.length; index += 1) gaps.push(Math.max(0, runs[index]!.start - runs[index - 1]!.end));
  }
  return gaps.length === 0 ? 0 : mean(gaps);
}

function startWorker(url: string, config: string): { log: () => string; stop: () => void; exited: Promise<unknown> } {
  let log = "";
  const child: ChildProcess = spawn(process.execPath, [BIN, "worker", "--store", url, "--roles", "admission", "--config", config], { stdio: ["ignore", "ignore", "pipe"] });
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  return {
    log: () => log,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    },
    exited: new Promise((resolve) => child.on("exit", resolve)),
  };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (!condition()) throw new ConfigError("the envforge worker processes did not start in time");
}
