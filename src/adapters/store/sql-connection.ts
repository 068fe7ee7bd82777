import type { CompiledQuery } from "kysely";

/** The SQL dialects a store speaks. */
export type SqlDialect = "sqlite" | "postgres";

/**
 * A synchronous connection to one database, the one thing a SQL store needs from a driver:
 * SQLite through better-sqlite3, PostgreSQL through libpq (pg-native). Queries come compiled by
 * Kysely for {@link SqlConnection.dialect}; no SQL text is built by hand.
 *
 * Synchronous on purpose: the {@link Store} contract is synchronous, its writes are small (one
 * round trip each on a local network, about 0.1 ms to a local PostgreSQL) and a whole
 * transaction runs without an `await` inside, so no other work of this process interleaves with it.
 *
 * @throws StoreError from every method when the database refuses or the connection is lost
 */
export interface SqlConnection {
  readonly dialect: SqlDialect;
  /** Rows of a query (a `SELECT`, or a write with `RETURNING`). */
  rows<Row>(query: CompiledQuery): Row[];
  /** Runs a statement that returns no rows. */
  execute(query: CompiledQuery): void;
  /**
   * Runs `body` in one transaction: committed when it returns, rolled back when it throws (the
   * error is rethrown). A transaction opened inside another joins it.
   */
  transaction<T>(body: () => T): T;
  /**
   * Runs `body` in one transaction holding the database-wide lock `key` until it ends, so one
   * process at a time runs it (schema migrations). SQLite: a write transaction already excludes
   * every other writer.
   */
  exclusive<T>(key: number, body: () => T): T;
  close(): void;
}
