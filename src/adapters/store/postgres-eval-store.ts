import { PostgresConnection, redactedUrl } from "./postgres-connection.js";
import { SqlEvalStore } from "./sql-eval-store.js";

/**
 * {@link SqlEvalStore} on a PostgreSQL server, in one schema (by default `envforge_evals`, shared by
 * every evaluation of a deployment; evaluations are told apart by id).
 *
 * @throws StoreError when the server cannot be reached, the store was written by a newer envforge, or a write fails
 */
export class PostgresEvalStore extends SqlEvalStore {
  /**
   * @param url libpq connection URL
   * @param schema @default "envforge_evals"
   */
  constructor(url: string, schema = "envforge_evals") {
    super(new PostgresConnection(url, schema), `${redactedUrl(url)}#${schema}`);
  }
}
