/**
 * The job queue shared by orchestrators and `envforge worker` processes: pg-boss on the
 * deployment's PostgreSQL, with results stored once per job key.
 * @module
 */
export { PgBossQueue, QUEUE_SCHEMA, type PgBossQueueOptions } from "./pg-boss-queue.js";
export { JobResults, JOBS_SCHEMA } from "./job-results.js";
