import { z } from "zod";

/**
 * The `jobs` block of the configuration (composed into `ConfigSchema` in ../schema.ts): the job
 * queue that `envforge worker` processes share with the commands that enqueue work
 * (docs/deploy.md). docs/configuration.md is generated from these keys and their TSDoc.
 */
export const JobsSchema = z
  .object({
    /**
     * Visibility timeout in seconds: a job whose worker sends no heartbeat for this long (the
     * worker was killed) is run again by another worker. pg-boss needs 10 or more. CLI
     * `worker --heartbeat-seconds`. @default 30
     */
    heartbeatSeconds: z.number().int().min(10).max(86_400).default(30),
    /** Runs after the first that a failing job gets before it fails for good. CLI `worker --retries`. @default 3 */
    retryLimit: z.number().int().min(0).max(100).default(3),
    /** First retry delay in seconds, doubled (with jitter) on each retry. No CLI flag (config only). @default 2 */
    retryDelaySeconds: z.number().int().min(0).max(3_600).default(2),
    /**
     * The deployment's name in its database: the queue's tables live in schema `<namespace>_queue`
     * and job results in `<namespace>_jobs`, so independent deployments share one server. Config
     * only. @default "envforge"
     */
    namespace: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,40}$/, "jobs.namespace must be lower-case letters, digits and _ (a PostgreSQL schema prefix)")
      .default("envforge"),
    /** Jobs one worker runs at a time. CLI `worker --concurrency`. @default 1 */
    concurrency: z.number().int().min(1).max(64).default(1),
  })
  .strict()
  .prefault({});
