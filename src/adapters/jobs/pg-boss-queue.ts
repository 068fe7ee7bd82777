import { hostname } from "node:os";
import { PgBoss } from "pg-boss";
import { StoreError, type Job, type JobHandler, type JobKind, type JobOutcome, type JobQueue } from "../../spec/index.js";
import { redactedUrl } from "../store/index.js";
import { JobResults } from "./job-results.js";

/** Options of {@link PgBossQueue}. */
export interface PgBossQueueOptions {
  /**
   * Visibility timeout: a running job whose worker sends no heartbeat for this long (a worker
   * killed mid-job) is failed and run again by another worker. pg-boss's minimum is 10. @default 30
   */
  readonly heartbeatSeconds?: number;
  /** Runs after the first that a failing job gets. @default 3 */
  readonly retryLimit?: number;
  /** First retry delay in seconds, doubled (with jitter) on each retry. @default 2 */
  readonly retryDelaySeconds?: number;
  /** How often this instance looks for jobs whose heartbeat stopped, in seconds. @default 10 */
  readonly superviseIntervalSeconds?: number;
  /** How this process names itself in stored results. @default `<host>/<pid>` */
  readonly worker?: string;
  /**
   * The deployment's name in the database: pg-boss's tables live in schema `<namespace>_queue` and
   * the results in `<namespace>_jobs`, so independent deployments (or tests) share one server.
   * @default "envforge"
   */
  readonly namespace?: string;
}

/** pg-boss's tables live in this schema of the deployment's database (default namespace). */
export const QUEUE_SCHEMA = "envforge_queue";

/** The pg-boss queue of a job kind. */
function queueName(kind: JobKind): string {
  return `envforge-${kind}`;
}

/** What {@link PgBossQueue.wait} reports every `statusEveryMs` while it waits. */
export interface WaitStatus {
  readonly done: number;
  readonly pending: number;
  /** Jobs of the kind queued and running in the whole queue (any enqueuer's). */
  readonly queued: number;
  readonly active: number;
}

interface JobData {
  readonly key: string;
  readonly payload: unknown;
}

/**
 * {@link JobQueue} on pg-boss 12 in the deployment's PostgreSQL (the store's database): queues
 * with the `exclusive` policy (one queued or running job per key), retries with exponential
 * backoff, heartbeats as the visibility timeout; results in {@link JobResults}, stored before the
 * job is acknowledged and at most once per key. Why pg-boss: it is the well-kept queue on plain
 * PostgreSQL (SKIP LOCKED claims, retries, heartbeats, LISTEN/NOTIFY), so a deployment needs no
 * second service beside the store.
 *
 * @throws StoreError when the database cannot be reached or pg-boss cannot install its schema
 */
export class PgBossQueue implements JobQueue {
  private readonly created = new Set<JobKind>();
  private closed = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly results: JobResults,
    private readonly options: Required<PgBossQueueOptions>,
  ) {}

  /** Connects, installs or migrates pg-boss's schema and the results table. */
  static async open(url: string, options: PgBossQueueOptions = {}): Promise<PgBossQueue> {
    const settings: Required<PgBossQueueOptions> = {
      heartbeatSeconds: options.heartbeatSeconds ?? 30,
      retryLimit: options.retryLimit ?? 3,
      retryDelaySeconds: options.retryDelaySeconds ?? 2,
      superviseIntervalSeconds: options.superviseIntervalSeconds ?? 10,
      worker: options.worker ?? `${hostname()}/${process.pid}`,
      namespace: options.namespace ?? "envforge",
    };
    if (settings.heartbeatSeconds < 10) throw new StoreError(`heartbeatSeconds is ${settings.heartbeatSeconds}; pg-boss needs 10 or more`);
    const results = new JobResults(url, settings.namespace);
    const boss = new PgBoss({ connectionString: url, schema: `${settings.namespace}_queue`, superviseIntervalSeconds: settings.superviseIntervalSeconds, monitorIntervalSeconds: settings.superviseIntervalSeconds, max: 4 });
    // connection losses are retried by pg-boss; they are reported, not thrown from a timer
    boss.on("error", (error: Error) => process.stderr.write(`envforge: job queue: ${error.message}\n`));
    try {
      await boss.start();
    } catch (error) {
      results.close();
      throw new StoreError(`cannot open the job queue on ${redactedUrl(url)}: ${(error as Error).message}`, { cause: error });
    }
    return new PgBossQueue(boss, results, settings);
  }

  async enqueue(kind: JobKind, jobs: readonly { readonly key: string; readonly payload: unknown }[]): Promise<number> {
    await this.ensureQueue(kind);
    const stored = this.results.find(
      kind,
      jobs.map((job) => job.key),
    );
    const fresh = jobs.filter((job) => !stored.has(job.key));
    // in slices of 1,000 rows per statement (47,678 candidates enqueue in seconds); the exclusive policy skips a
    // key already queued or running
    for (let start = 0; start < fresh.length; start += 1000) {
      await this.boss.insert(
        queueName(kind),
        fresh.slice(start, start + 1000).map((job) => ({ data: { key: job.key, payload: job.payload } satisfies JobData, singletonKey: job.key })),
      );
    }
    return fresh.length;
  }

  async work(kind: JobKind, handler: JobHandler, options: { readonly concurrency: number }): Promise<void> {
    await this.ensureQueue(kind);
    await this.boss.work<JobData>(
      queueName(kind),
      { batchSize: 1, localConcurrency: options.concurrency, pollingIntervalSeconds: 0.5, includeMetadata: true },
      async ([claimed]) => {
        if (claimed === undefined) return;
        const data = claimed.data as Partial<JobData> | null;
        try {
          if (data === null || typeof data !== "object" || typeof data.key !== "string") throw new Error(`malformed ${kind} job ${claimed.id}: its data holds no key`);
          const key = data.key;
          // a job that ran before (its worker died after storing, before the acknowledgement) is not run again
          if (this.results.find(kind, [key]).has(key)) return;
          const job: Job = { id: claimed.id, kind, key, payload: data.payload, attempt: claimed.retryCount };
          const started = performance.now();
          const result = await handler(job);
          this.results.store(kind, key, result, (performance.now() - started) / 1000, this.options.worker);
        } catch (error) {
          // the handler says what it was doing; this names the job when the failure is the queue's or the store's
          process.stderr.write(`envforge: ${kind} job ${claimed.id} failed (attempt ${claimed.retryCount + 1}): ${(error as Error).message}\n`);
          throw error;
        }
      },
    );
  }

  async wait(
    kind: JobKind,
    keys: readonly string[],
    options: { readonly onOutcome?: (outcome: JobOutcome) => void; readonly pollMs?: number; readonly onWaiting?: (status: WaitStatus) => void; readonly statusEveryMs?: number } = {},
  ): Promise<Map<string, JobOutcome>> {
    const outcomes = new Map<string, JobOutcome>();
    const pending = new Set(keys);
    const pollMs = options.pollMs ?? 500;
    const statusEveryMs = options.statusEveryMs ?? 30_000;
    let lastStatus = Date.now();
    for (let poll = 0; pending.size > 0 && !this.closed; poll += 1) {
      if (options.onWaiting !== undefined && Date.now() - lastStatus >= statusEveryMs) {
        lastStatus = Date.now();
        const queue = await this.boss.getQueue(queueName(kind));
        options.onWaiting({ done: outcomes.size, pending: pending.size, queued: queue?.queuedCount ?? 0, active: queue?.activeCount ?? 0 });
      }
      for (const [key, outcome] of this.results.find(kind, [...pending])) {
        pending.delete(key);
        outcomes.set(key, outcome);
        options.onOutcome?.(outcome);
      }
      // jobs that failed for good leave no result: look for them now and then
      if (pending.size > 0 && poll % 10 === 9) {
        for (const key of [...pending]) {
          const jobs = await this.boss.findJobs<JobData>(queueName(kind), { key });
          const last = jobs.at(-1);
          if (last === undefined || last.state !== "failed") continue;
          const outcome: JobOutcome = { state: "failed", key, error: errorOf(last.output) };
          pending.delete(key);
          outcomes.set(key, outcome);
          options.onOutcome?.(outcome);
        }
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return outcomes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // jobs in hand get 30 s to finish; those still running then are run again after the visibility timeout
    await this.boss.stop({ graceful: true, timeout: 30_000 });
    this.results.close();
  }

  private async ensureQueue(kind: JobKind): Promise<void> {
    if (this.created.has(kind)) return;
    const name = queueName(kind);
    const settings = {
      policy: "exclusive" as const,
      retryLimit: this.options.retryLimit,
      retryDelay: this.options.retryDelaySeconds,
      retryBackoff: true,
      heartbeatSeconds: this.options.heartbeatSeconds,
    };
    const existing = await this.boss.getQueue(name);
    if (existing === null) {
      try {
        await this.boss.createQueue(name, settings);
      } catch (error) {
        // another process created it first
        if ((await this.boss.getQueue(name)) === null) throw error;
      }
    } else if (existing.retryLimit !== settings.retryLimit || existing.retryDelay !== settings.retryDelay) {
      // the retry settings follow the latest process that opened the queue; the heartbeat stays the creator's (pg-boss fixes it)
      await this.boss.updateQueue(name, { retryLimit: settings.retryLimit, retryDelay: settings.retryDelay, retryBackoff: true });
    }
    this.created.add(kind);
  }
}

function errorOf(output: unknown): string {
  if (output !== null && typeof output === "object" && "message" in output) return String((output as { message: unknown }).message);
  return JSON.stringify(output ?? "failed");
}
