import { StoreError } from "../../spec/index.js";
import { SqlEvalStore } from "./sql-eval-store.js";
import { SqliteConnection } from "./sqlite-connection.js";

/** Options of {@link SqliteEvalStore}. */
export interface SqliteEvalStoreOptions {
  /**
   * Open an existing file for reading only (`eval --list`, `--compare`): no folder, schema or
   * journal mode is written (SQLite still creates the `-wal`/`-shm` companions of a WAL store
   * beside it, as any reader of one does), and a file without the eval tables reads as a store
   * with no evaluations. Writing methods then throw {@link StoreError}. @default false
   */
  readonly readOnly?: boolean;
}

/**
 * {@link SqlEvalStore} in one SQLite file (better-sqlite3, WAL): the embedded default.
 *
 * @throws StoreError when the file cannot be opened (read-only: also when it does not exist) or written
 */
export class SqliteEvalStore extends SqlEvalStore {
  /** @param location path of the SQLite file (its folder is created unless read-only) */
  constructor(location: string, options: SqliteEvalStoreOptions = {}) {
    super(openConnection(location, options), location, options);
  }
}

function openConnection(location: string, options: SqliteEvalStoreOptions): SqliteConnection {
  try {
    return new SqliteConnection(location, options);
  } catch (error) {
    throw new StoreError(`cannot open the eval store ${location}: ${(error as Error).message}`, { cause: error });
  }
}
