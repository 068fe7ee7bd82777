import { configSource, mergeConfigInput, parseConfig, readConfigFile, type Config } from "../config/index.js";
import { PgBossQueue } from "../adapters/jobs/index.js";
import { redactedUrl } from "../adapters/store/index.js";
import { ConfigError, JOB_KINDS, type JobHandler, type JobKind } from "../spec/index.js";
import { admissionJobHandler } from "./admission-worker.js";
import { evolutionJobHandler } from "./evolution-worker.js";
import { onStopSignals } from "./stop-signals.js";

/** Flags of `envforge worker`. */
export interface WorkerFlags {
  /** PostgreSQL URL of the deployment (required). */
  readonly store?: string;
  /** Comma-separated job kinds to take. @default every kind */
  readonly roles?: string;
  readonly config?: string;
  /** Jobs at a time (`jobs.concurrency`). */
  readonly concurrency?: number;
  /** Visibility timeout (`jobs.heartbeatSeconds`). */
  readonly heartbeatSeconds?: number;
  /** Retries of a failing job (`jobs.retryLimit`). */
  readonly retries?: number;
}

/**
 * Parses `--roles`.
 * @throws ConfigError naming an unknown role and the known ones
 */
export function parseRoles(list: string | undefined): JobKind[] {
  if (list === undefined) return [...JOB_KINDS];
  const roles = list.split(",").map((role) => role.trim()).filter((role) => role.length > 0);
  for (const role of roles) {
    if (!(JOB_KINDS as readonly string[]).includes(role)) throw new ConfigError(`--roles: unknown role "${role}"; roles are ${JOB_KINDS.join(", ")}`);
  }
  if (roles.length === 0) throw new ConfigError(`--roles names no role; roles are ${JOB_KINDS.join(", ")}`);
  return roles as JobKind[];
}

function resolveWorkerConfig(flags: WorkerFlags): Config {
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const jobs = {
    ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
    ...(flags.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: flags.heartbeatSeconds }),
    ...(flags.retries === undefined ? {} : { retryLimit: flags.retries }),
  };
  return parseConfig(mergeConfigInput(fromFile, { jobs, ...(flags.store === undefined ? {} : { store: { url: flags.store } }) }), configSource(flags.config));
}

/**
 * `envforge worker --store URL [--roles admission,evolution]`: takes jobs from the deployment's queue and
 * runs them until SIGINT or SIGTERM, printing one line per job on stderr. Jobs in hand at a stop
 * get a short while to finish; one still running is run again by another worker after the
 * visibility timeout. Returns the exit code (0 when stopped; a signal exits 130 or 143).
 * @throws ConfigError without `--store`, or for unknown roles
 */
export async function workerCommand(flags: WorkerFlags, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const roles = parseRoles(flags.roles);
  const config = resolveWorkerConfig(flags);
  const url = config.store.url;
  if (url === null) throw new ConfigError("envforge worker needs --store postgres://… (the deployment's database; docs/deploy.md)");
  const queue = await PgBossQueue.open(url, { heartbeatSeconds: config.jobs.heartbeatSeconds, retryLimit: config.jobs.retryLimit, retryDelaySeconds: config.jobs.retryDelaySeconds, namespace: config.jobs.namespace });
  const admission = admissionJobHandler(config);
  const evolution = evolutionJobHandler(url, config);
  const handlers: Record<JobKind, JobHandler> = { admission: admission.handler, evolution: evolution.handler };
  let count = 0;
  const stop = async () => {
    await queue.close();
    await admission.close();
    await evolution.close();
  };
  const removeStopHandlers = onStopSignals(async () => {
    process.stderr.write(`envforge worker: stopping after ${count} job(s)\n`);
    await stop();
  });
  try {
    for (const role of roles) {
      await queue.work(
        role,
        async (job) => {
          const started = performance.now();
          process.stderr.write(`envforge worker: ${role} ${job.key.slice(0, 12)} started${job.attempt > 0 ? ` (retry ${job.attempt})` : ""}\n`);
          // a failure is printed by the queue, with the job and its attempt
          const result = await handlers[role](job);
          count += 1;
          process.stderr.write(`envforge worker: ${role} ${job.key.slice(0, 12)} done in ${((performance.now() - started) / 1000).toFixed(1)} s${job.attempt > 0 ? ` (retry ${job.attempt})` : ""}\n`);
          return result;
        },
        { concurrency: config.jobs.concurrency },
      );
    }
    process.stderr.write(`envforge worker: taking ${roles.join(", ")} jobs from ${redactedUrl(url)}, ${config.jobs.concurrency} at a time; stop with Ctrl-C\n`);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    removeStopHandlers();
    await stop();
    return 0;
  } catch (error) {
    removeStopHandlers();
    await stop();
    throw error;
  }
}
