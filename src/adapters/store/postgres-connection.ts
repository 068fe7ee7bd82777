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
  private client: Client;
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
    this.client = this.connect();
    this.execute(sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.compile(queryBuilder("postgres")));
    this.setSearchPath();
  }

  /**
   * Rows of `query`. A connection lost outside a transaction (the server restarted) is opened again
   * and the query sent once more: every statement the stores send outside a transaction is an
   * idempotent insert, upsert or update, so a statement that did run before the loss runs again
   * harmlessly. Inside a transaction the loss is the caller's error (the server rolled it back).
   */
  rows<Row>(query: CompiledQuery): Row[] {
    try {
      return this.client.querySync(query.sql, query.parameters as unknown[]) as Row[];
    } catch (error) {
      if (this.depth > 0 || !LOST_CONNECTION.test(firstLine(error))) throw this.failure(error);
    }
    this.reconnect();
    try {
      return this.client.querySync(query.sql, query.parameters as unknown[]) as Row[];
    } catch (error) {
      throw this.failure(error);
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

  private connect(): Client {
    const client = new Client();
    try {
      client.connectSync(this.url);
      // "already exists, skipping" notices of every idempotent CREATE would go to stderr
      client.querySync("SET client_min_messages TO warning");
    } catch (error) {
      throw new StoreError(`cannot connect to ${redactedUrl(this.url)}: ${firstLine(error)}`, { cause: error });
    }
    return client;
  }

  private setSearchPath(): void {
    this.execute(sql`SET search_path TO ${sql.id(this.schema)}`.compile(queryBuilder("postgres")));
  }

  private reconnect(): void {
    const lost = this.client;
    this.client = this.connect();
    try {
      lost.end();
    } catch {
      // already gone
    }
    CLOSING.add(lost);
    setTimeout(() => CLOSING.delete(lost), 1_000).unref();
    this.setSearchPath();
  }

  private failure(error: unknown): StoreError {
    return new StoreError(`${redactedUrl(this.url)} (schema ${this.schema}): ${firstLine(error)}`, { cause: error });
  }

  private command(text: "BEGIN" | "COMMIT" | "ROLLBACK"): void {
    this.execute(sql.raw(text).compile(queryBuilder("postgres")));
  }
}

const CLOSING = new Set<Client>();

/** libpq's messages of a connection that is gone (a restarted or unreachable server). */
const LOST_CONNECTION = /no connection to the server|server closed the connection unexpectedly|terminating connection|could not (send|receive) data|connection to server .* failed|SSL connection has been closed/i;

/** The URL with its password (in the user part or a `password=` parameter) replaced by `***`, for messages. */
export function redactedUrl(url: string): string {
  return withPassword(url, "***");
}

/** The URL without its password (libpq then reads it from `~/.pgpass` or `PGPASSWORD`), for files. */
export function withoutPassword(url: string): string {
  return withPassword(url, null);
}

function withPassword(url: string, replacement: string | null): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = replacement ?? "";
    if (parsed.searchParams.has("password")) {
      if (replacement === null) parsed.searchParams.delete("password");
      else parsed.searchParams.set("password", replacement);
    }
    return parsed.toString();
  } catch {
    // not a URL WHATWG parses (a multi-host URL): cut what looks like a password
    return url.replace(/(\/\/[^:@/]*):[^@/]*@/, replacement === null ? "$1@" : `$1:${replacement}@`).replace(/([?&]password=)[^&]*/gi, replacement === null ? "$1" : `$1${replacement}`);
  }
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).trim().split("\n")[0] ?? "";
}
