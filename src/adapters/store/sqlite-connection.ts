import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { CompiledQuery } from "kysely";
import { StoreError } from "../../spec/index.js";
import { makeDirectory } from "../../support/make-directory.js";
import type { SqlConnection } from "./sql-connection.js";

/**
 * {@link SqlConnection} on one SQLite file through better-sqlite3, in WAL mode with
 * `synchronous = NORMAL`: a process killed with SIGKILL loses no committed transaction.
 *
 * @throws StoreError when the file cannot be opened or is not a database
 */
export class SqliteConnection implements SqlConnection {
  readonly dialect = "sqlite" as const;
  private readonly db: Database.Database;

  /**
   * @param path the database file (`:memory:` for tests); parent folders are created
   * @param options.readOnly open an existing file for reading only @default false
   */
  constructor(
    private readonly path: string,
    options: { readonly readOnly?: boolean } = {},
  ) {
    try {
      if (options.readOnly === true) {
        this.db = new Database(path, { readonly: true, fileMustExist: true });
      } else {
        if (path !== ":memory:") makeDirectory(dirname(path));
        this.db = new Database(path);
        this.db.pragma("journal_mode = WAL");
        this.db.pragma("synchronous = NORMAL");
      }
    } catch (error) {
      throw new StoreError(`cannot open store ${path}: ${(error as Error).message}`, { cause: error });
    }
  }

  rows<Row>(query: CompiledQuery): Row[] {
    try {
      return this.db.prepare(query.sql).all(...(query.parameters as unknown[])) as Row[];
    } catch (error) {
      throw new StoreError(`store ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  execute(query: CompiledQuery): void {
    try {
      this.db.prepare(query.sql).run(...(query.parameters as unknown[]));
    } catch (error) {
      throw new StoreError(`store ${this.path}: ${(error as Error).message}`, { cause: error });
    }
  }

  transaction<T>(body: () => T): T {
    if (this.db.inTransaction) return body();
    return this.db.transaction(body).immediate();
  }

  exclusive<T>(_key: number, body: () => T): T {
    return this.transaction(body);
  }

  close(): void {
    this.db.close();
  }
}
