/**
 * Kinds of work that run as jobs on a shared queue; each is a role a worker takes
 * (`envforge worker --roles`). `admission`: admit one candidate package (the admission gates,
 * calibration included when the config runs it). `evolution`: evolve one lineage of an evolution
 * whose store is on the deployment's PostgreSQL, generation by generation, from where the store stands.
 */
export type JobKind = "admission" | "evolution";

/** Every job kind, in the order `envforge worker` lists them. */
export const JOB_KINDS: readonly JobKind[] = ["admission", "evolution"];

/** A job as a worker receives it. */
export interface Job<Payload = unknown> {
  /** The queue's id of this job. */
  readonly id: string;
  readonly kind: JobKind;
  /**
   * The job's idempotency key: one result is stored per (kind, key), whoever computes it first;
   * a job whose result is already stored is acknowledged without running again.
   */
  readonly key: string;
  readonly payload: Payload;
  /** 0 on the first run, then 1, 2, … on retries. */
  readonly attempt: number;
}

/** What became of a job, as the one who enqueued it sees it. */
export type JobOutcome =
  | {
      readonly state: "done";
      readonly key: string;
      /** The stored result (JSON). */
      readonly result: unknown;
      /** Seconds the handler ran in the run that stored the result. */
      readonly seconds: number;
      /** The worker that stored it (`host/pid`). */
      readonly worker: string;
      /** When it was stored (ISO 8601, milliseconds). */
      readonly storedAt: string;
    }
  | {
      readonly state: "failed";
      readonly key: string;
      /** The last run's error message, after every retry failed. */
      readonly error: string;
    };

/** Runs one job and returns its result (JSON); throwing fails this run, which is retried with backoff. */
export type JobHandler = (job: Job) => Promise<unknown>;

/**
 * A durable job queue shared by orchestrators and workers (pg-boss on the store's PostgreSQL).
 * Jobs survive the processes that enqueue and run them: a worker that dies mid-job stops
 * heartbeating, and its job is run again by another worker after the visibility timeout; a
 * failed run is retried with exponential backoff up to the retry limit; results are stored once
 * per (kind, key).
 *
 * @throws StoreError when the database cannot be reached
 */
export interface JobQueue {
  /**
   * Enqueues jobs (kind, key, payload); a key whose result is stored, or whose job is queued or
   * running, is not enqueued again. Returns how many had no stored result (those the queue took,
   * and any it skipped as queued or running already).
   */
  enqueue(kind: JobKind, jobs: readonly { readonly key: string; readonly payload: unknown }[]): Promise<number>;
  /**
   * Takes jobs of `kind` and runs them with `handler`, `concurrency` at a time, until
   * {@link JobQueue.close}. Each result is stored before the job is acknowledged.
   */
  work(kind: JobKind, handler: JobHandler, options: { readonly concurrency: number }): Promise<void>;
  /**
   * Waits until every key has an outcome (its result stored, or its job failed for good), calling
   * `onOutcome` as each arrives, and returns them by key.
   */
  wait(
    kind: JobKind,
    keys: readonly string[],
    options?: {
      readonly onOutcome?: (outcome: JobOutcome) => void;
      /** @default 500 */
      readonly pollMs?: number;
      /** Called every `statusEveryMs` while jobs are pending, with the counts (no worker running shows as nothing active). */
      readonly onWaiting?: (status: { readonly done: number; readonly pending: number; readonly queued: number; readonly active: number }) => void;
      /** @default 30000 */
      readonly statusEveryMs?: number;
    },
  ): Promise<Map<string, JobOutcome>>;
  /**
   * Stops taking jobs and waiting, lets the jobs in hand finish (briefly; a job still running then is
   * run again elsewhere after the visibility timeout), and closes the connections.
   */
  close(): Promise<void>;
}
