import Client from "pg-native";
import { sql, type CompiledQuery } from "kysely";
import { StoreError } from "../../spec/index.js";
import type { SqlConnection } from "./sql-connection.js";
import { queryBuilder } from "./sql-dialects.js";

/**
 * {@link SqlConnection} to a PostgreSQL server through libpq (pg-native's synchronous calls),
 * in one schema: the tables of one run live in their own schema (`search_path`), so several runs
 * share one database without sharing rows. Transactions run at READ COMMITTED; the store's
 * writes are idempotent inserts, and what must not lose an update takes a row lock.
 *
 * @throws StoreError when the server cannot be reached, refuses the login, or a query fails
 */
export class PostgresConnection implements SqlConnection {
  readonly dialect = "postgres" as const;
  private readonly client: Client;
  private depth = 0;

  /**
   * @param url a libpq connection URL (`postgres://user@host:5432/db`); libpq's variables
   *   (`PGPASSWORD`, `PGSSLMODE`, …) apply as usual
   * @param schema the schema the tables live in, created when missing
   */
  constructor(
    readonly url: string,
    readonly schema: string,
  ) {
    this.client = new Client();
    try {
      this.client.connectSync(url);
    } catch (error) {
      throw new StoreError(`cannot connect to ${redactedUrl(url)}: ${firstLine(error)}`, { cause: error });
    }
    const builder = queryBuilder("postgres");
    // "already exists, skipping" notices of every idempotent CREATE would go to stderr
    this.execute(sql`SET client_min_messages TO warning`.compile(builder));
    this.execute(sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.compile(builder));
    this.execute(sql`SET search_path TO ${sql.id(schema)}`.compile(builder));
  }

  rows<Row>(query: CompiledQuery): Row[] {
    try {
      return this.client.querySync(query.sql, query.parameters as unknown[]) as Row[];
    } catch (error) {
      throw new StoreError(`${redactedUrl(this.url)} (schema ${this.schema}): ${firstLine(error)}`, { cause: error });
    }
  }

  execute(query: CompiledQuery): void {
    this.rows(query);
  }

  transaction<T>(body: () => T): T {
    if (this.depth > 0) return body();
    this.command("BEGIN");
    this.depth += 1;
    try {
      const result = body();
      this.command("COMMIT");
      return result;
    } catch (error) {
      try {
        this.command("ROLLBACK");
      } catch {
        // the connection is gone: the server rolls the transaction back itself
      }
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  exclusive<T>(key: number, body: () => T): T {
    return this.transaction(() => {
      this.execute(sql`SELECT pg_advisory_xact_lock(${key})`.compile(queryBuilder("postgres")));
      return body();
    });
  }

  close(): void {
    const client = this.client;
    client.end();
    // libpq's binding frees the socket's poll handle with the client, and closes it asynchronously: a client
    // collected before the loop turns aborts the process (uv__finish_close), so it is kept a moment longer
    CLOSING.add(client);
    setTimeout(() => CLOSING.delete(client), 1_000).unref();
  }

  private command(text: "BEGIN" | "COMMIT" | "ROLLBACK"): void {
    this.execute(sql.raw(text).compile(queryBuilder("postgres")));
  }
}

const CLOSING = new Set<Client>();

/** The URL with its password replaced by `***`, for messages and pointer files. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "the PostgreSQL server";
  }
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).trim().split("\n")[0] ?? "";
}
