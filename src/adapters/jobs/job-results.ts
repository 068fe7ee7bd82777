import { migrate, PostgresConnection, queryBuilder, redactedUrl } from "../store/index.js";
import type { JobKind, JobOutcome } from "../../spec/index.js";

/** The schema that holds job results beside pg-boss's own tables (of the default namespace `envforge`). */
export const JOBS_SCHEMA = "envforge_jobs";

/**
 * Results of jobs, one per (kind, key), in the `job_results` table: the first result stored wins
 * (`ON CONFLICT DO NOTHING`), so a job that ran twice (a worker killed after the work, before its
 * acknowledgement) writes its result once.
 *
 * @throws StoreError when the database cannot be reached or written
 */
export class JobResults {
  private readonly connection: PostgresConnection;
  private readonly db = queryBuilder("postgres");

  /**
   * @param url libpq connection URL of the deployment's database
   * @param namespace the deployment's name in that database: results live in schema `<namespace>_jobs` @default "envforge"
   */
  constructor(url: string, namespace = "envforge") {
    this.connection = new PostgresConnection(url, `${namespace}_jobs`);
    try {
      migrate(this.connection, "jobs");
    } catch (error) {
      this.connection.close();
      throw error;
    }
  }

  /** Where the results live, for messages. */
  get location(): string {
    return `${redactedUrl(this.connection.url)}#${this.connection.schema}`;
  }

  /** Stores a result unless one is stored for (kind, key); returns true when this call stored it. */
  store(kind: JobKind, key: string, result: unknown, seconds: number, worker: string): boolean {
    const inserted = this.connection.rows(
      this.db
        .insertInto("job_results")
        .values({ kind, key, result: JSON.stringify(result ?? null), seconds, worker, stored_at: new Date().toISOString() })
        .onConflict((conflict) => conflict.doNothing())
        .returning("key")
        .compile(),
    );
    return inserted.length === 1;
  }

  /** The stored outcomes of `keys` (those with none are absent). */
  find(kind: JobKind, keys: readonly string[]): Map<string, Extract<JobOutcome, { state: "done" }>> {
    const found = new Map<string, Extract<JobOutcome, { state: "done" }>>();
    // bounded statements: a wait on 47,678 keys is read in slices
    for (let start = 0; start < keys.length; start += 1000) {
      const slice = keys.slice(start, start + 1000);
      const rows = this.connection.rows<{ key: string; result: string; seconds: number; worker: string; stored_at: string }>(
        this.db.selectFrom("job_results").select(["key", "result", "seconds", "worker", "stored_at"]).where("kind", "=", kind).where("key", "in", slice).compile(),
      );
      for (const row of rows) found.set(row.key, { state: "done", key: row.key, result: JSON.parse(row.result), seconds: row.seconds, worker: row.worker, storedAt: row.stored_at });
    }
    return found;
  }

  close(): void {
    this.connection.close();
  }
}
