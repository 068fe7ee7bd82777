import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import type { SqlDialect } from "./sql-connection.js";
import type { StoreTables } from "./store-tables.js";

const builders = new Map<SqlDialect, Kysely<StoreTables>>();

/**
 * Kysely's query builder for `dialect`, used only to compile queries (its driver never
 * connects): a {@link SqlConnection} runs the compiled SQL synchronously.
 */
export function queryBuilder(dialect: SqlDialect): Kysely<StoreTables> {
  let builder = builders.get(dialect);
  if (builder === undefined) {
    builder = new Kysely<StoreTables>({
      dialect:
        dialect === "sqlite"
          ? {
              createAdapter: () => new SqliteAdapter(),
              createDriver: () => new DummyDriver(),
              createIntrospector: (db) => new SqliteIntrospector(db),
              createQueryCompiler: () => new SqliteQueryCompiler(),
            }
          : {
              createAdapter: () => new PostgresAdapter(),
              createDriver: () => new DummyDriver(),
              createIntrospector: (db) => new PostgresIntrospector(db),
              createQueryCompiler: () => new PostgresQueryCompiler(),
            },
    });
    builders.set(dialect, builder);
  }
  return builder;
}
