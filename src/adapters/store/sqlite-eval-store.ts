import { dirname } from "node:path";
import Database from "better-sqlite3";
import { makeDirectory } from "../../support/make-directory.js";
import { StoreError, type EvalRecord, type EvalStore, type ItemResult } from "../../spec/index.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS evals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  model TEXT NOT NULL,
  checkpoint TEXT,
  suite_version TEXT NOT NULL,
  plan TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE TABLE IF NOT EXISTS eval_items (
  eval_id TEXT NOT NULL,
  suite TEXT NOT NULL,
  task TEXT NOT NULL,
  idx INTEGER NOT NULL,
  bucket TEXT,
  seed INTEGER NOT NULL,
  score REAL NOT NULL,
  won INTEGER NOT NULL,
  error_code TEXT,
  result TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (eval_id, suite, task, idx)
);
`;

interface EvalRow {
  id: string;
  model: string;
  checkpoint: string | null;
  suite_version: string;
  plan: string;
  created_at: string;
  finished_at: string | null;
}

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
 * {@link EvalStore} in one SQLite file (better-sqlite3, WAL): `evals` holds each evaluation's
 * model, checkpoint, suite version and plan (seeds included); `eval_items` one row per item,
 * written as the item finishes, so a killed evaluation loses at most the items in flight.
 *
 * @throws StoreError when the file cannot be opened (read-only: also when it does not exist) or written
 */
export class SqliteEvalStore implements EvalStore {
  private readonly db: Database.Database;
  private sequence: number;
  /** False for a read-only file that holds no eval tables (every read is then empty). */
  private readonly tables: boolean;

  /** @param location path of the SQLite file (its folder is created unless read-only) */
  constructor(
    readonly location: string,
    options: SqliteEvalStoreOptions = {},
  ) {
    try {
      if (options.readOnly === true) {
        this.db = new Database(location, { readonly: true, fileMustExist: true });
        this.tables = (this.db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('evals', 'eval_items')").get() as { n: number }).n === 2;
      } else {
        makeDirectory(dirname(location));
        this.db = new Database(location);
        this.db.pragma("journal_mode = WAL");
        this.db.exec(SCHEMA);
        this.tables = true;
      }
      this.sequence = this.tables ? (this.db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM eval_items").get() as { seq: number }).seq : 0;
    } catch (error) {
      throw new StoreError(`cannot open the eval store ${location}: ${(error as Error).message}`, { cause: error });
    }
  }

  beginEval(record: Omit<EvalRecord, "finishedAt">): EvalRecord {
    this.write(() =>
      this.db
        .prepare("INSERT OR IGNORE INTO evals (id, model, checkpoint, suite_version, plan, created_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(record.id, record.model, record.checkpoint, record.suiteVersion, JSON.stringify(record.plan), record.createdAt),
    );
    return this.findEval(record.id) as EvalRecord;
  }

  /** Records when an evaluation first finished; a later call (a rerun of a finished evaluation) keeps that time. */
  finishEval(id: string, finishedAt: string): void {
    this.write(() => this.db.prepare("UPDATE evals SET finished_at = ? WHERE id = ? AND finished_at IS NULL").run(finishedAt, id));
  }

  saveItem(evalId: string, result: ItemResult): void {
    this.sequence += 1;
    const sequence = this.sequence;
    this.write(() =>
      this.db
        .prepare(
          `INSERT INTO eval_items (eval_id, suite, task, idx, bucket, seed, score, won, error_code, result, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (eval_id, suite, task, idx) DO UPDATE SET bucket = excluded.bucket, seed = excluded.seed, score = excluded.score, won = excluded.won,
             error_code = excluded.error_code, result = excluded.result`,
        )
        .run(evalId, result.suite, result.task, result.index, result.bucket, result.seed, result.score, result.won ? 1 : 0, result.error?.code ?? null, JSON.stringify(result), sequence),
    );
  }

  listItems(evalId: string): ItemResult[] {
    if (!this.tables) return [];
    const rows = this.db.prepare("SELECT result FROM eval_items WHERE eval_id = ? ORDER BY seq").all(evalId) as { result: string }[];
    return rows.map((row) => JSON.parse(row.result) as ItemResult);
  }

  findEval(idOrPrefix: string): EvalRecord | undefined {
    if (!this.tables) return undefined;
    const exact = this.db.prepare("SELECT * FROM evals WHERE id = ?").get(idOrPrefix) as EvalRow | undefined;
    if (exact !== undefined) return recordOf(exact);
    const matches = this.db.prepare("SELECT * FROM evals WHERE substr(id, 1, ?) = ?").all(idOrPrefix.length, idOrPrefix) as EvalRow[];
    return matches.length === 1 ? recordOf(matches[0] as EvalRow) : undefined;
  }

  listEvals(): EvalRecord[] {
    if (!this.tables) return [];
    return (this.db.prepare("SELECT * FROM evals ORDER BY seq").all() as EvalRow[]).map(recordOf);
  }

  close(): void {
    this.db.close();
  }

  private write(action: () => unknown): void {
    try {
      action();
    } catch (error) {
      throw new StoreError(`cannot write the eval store ${this.location}: ${(error as Error).message}`, { cause: error });
    }
  }
}

function recordOf(row: EvalRow): EvalRecord {
  return {
    id: row.id,
    model: row.model,
    checkpoint: row.checkpoint,
    suiteVersion: row.suite_version,
    plan: JSON.parse(row.plan) as unknown,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}
