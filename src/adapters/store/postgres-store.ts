import { PostgresConnection, redactedUrl } from "./postgres-connection.js";
import { SqlStore } from "./sql-store.js";

/**
 * {@link SqlStore} on a PostgreSQL server: one run's memory in one schema of a shared database,
 * so several orchestrators (each its own run) and the workers of each share one server.
 *
 * @throws StoreError when the server cannot be reached, the store was written by a newer envforge, or a write fails
 */
export class PostgresStore extends SqlStore {
  /**
   * @param url libpq connection URL, e.g. `postgres://envforge@db:5432/envforge`
   * @param schema the run's schema (see {@link runSchema})
   */
  constructor(url: string, schema: string) {
    super(new PostgresConnection(url, schema), `${redactedUrl(url)}#${schema}`);
  }
}
