import { SqlStore } from "./sql-store.js";
import { SqliteConnection } from "./sqlite-connection.js";

/**
 * {@link SqlStore} on one SQLite file (better-sqlite3, WAL journal): the embedded default, one
 * run per file.
 *
 * @throws StoreError when the file cannot be opened or is not an envforge store
 */
export class SqliteStore extends SqlStore {
  /** @param location path of the database file (`:memory:` for tests); parent folders are created */
  constructor(location: string) {
    super(new SqliteConnection(location), location);
  }
}
