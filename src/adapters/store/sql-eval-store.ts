import { sql, type CompiledQuery, type Kysely } from "kysely";
import { StoreError, type EvalRecord, type EvalStore, type ItemResult } from "../../spec/index.js";
import type { SqlConnection } from "./sql-connection.js";
import { queryBuilder } from "./sql-dialects.js";
import { migrate, readableSchema } from "./store-schema.js";
import type { StoreRow, StoreTables } from "./store-tables.js";

/**
 * {@link EvalStore} on a {@link SqlConnection} (SQLite or PostgreSQL): `evals` holds each
 * evaluation's model, checkpoint, suite version and plan (seeds included); `eval_items` one row per
 * item, written as the item finishes, so a killed evaluation loses at most the items in flight.
 * Items are numbered in the order they were first stored, by the database (shards written by
 * several workers at once keep one order).
 *
 * @throws StoreError when the store cannot be opened (read-only: also when it does not exist), was
 *   written by a newer envforge, or a write fails
 */
export class SqlEvalStore implements EvalStore {
  private readonly db: Kysely<StoreTables>;
  /** False for a read-only store that holds no eval tables (every read is then empty). */
  private readonly tables: boolean;

  /**
   * @param connection the open connection; closed by {@link SqlEvalStore.close}
   * @param location for messages (a file path, or a URL without its password)
   * @param options.readOnly open for reading only: nothing is created or migrated, and a store
   *   without the eval tables reads as holding no evaluations @default false
   */
  constructor(
    private readonly connection: SqlConnection,
    readonly location: string,
    options: { readonly readOnly?: boolean } = {},
  ) {
    this.db = queryBuilder(connection.dialect);
    try {
      this.tables = options.readOnly === true ? readableSchema(connection, "eval") : migrate(connection, "eval") > 0;
    } catch (error) {
      connection.close();
      throw new StoreError(`cannot open the eval store ${location}: ${(error as Error).message}`, { cause: error });
    }
  }

  beginEval(record: Omit<EvalRecord, "finishedAt">): EvalRecord {
    this.execute(
      this.db
        .insertInto("evals")
        .values({
          id: record.id,
          model: record.model,
          checkpoint: record.checkpoint,
          suite_version: record.suiteVersion,
          plan: JSON.stringify(record.plan),
          created_at: record.createdAt,
          finished_at: null,
        })
        .onConflict((conflict) => conflict.doNothing()),
    );
    return this.findEval(record.id) as EvalRecord;
  }

  /** Records when an evaluation first finished; a later call (a rerun of a finished evaluation) keeps that time. */
  finishEval(id: string, finishedAt: string): void {
    this.execute(this.db.updateTable("evals").set({ finished_at: finishedAt }).where("id", "=", id).where("finished_at", "is", null));
  }

  saveItem(evalId: string, result: ItemResult): void {
    const values = {
      bucket: result.bucket,
      seed: result.seed,
      score: result.score,
      won: result.won ? 1 : 0,
      error_code: result.error?.code ?? null,
      result: JSON.stringify(result),
    };
    this.execute(
      this.db
        .insertInto("eval_items")
        .values({
          eval_id: evalId,
          suite: result.suite,
          task: result.task,
          idx: result.index,
          ...values,
          seq: sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM eval_items)`,
        })
        .onConflict((conflict) => conflict.columns(["eval_id", "suite", "task", "idx"]).doUpdateSet(values)),
    );
  }

  listItems(evalId: string): ItemResult[] {
    if (!this.tables) return [];
    return this.rows(this.db.selectFrom("eval_items").select("result").where("eval_id", "=", evalId).orderBy("seq").orderBy("suite").orderBy("task").orderBy("idx")).map(
      (row) => JSON.parse(row.result) as ItemResult,
    );
  }

  findEval(idOrPrefix: string): EvalRecord | undefined {
    if (!this.tables) return undefined;
    const exact = this.rows(this.db.selectFrom("evals").selectAll().where("id", "=", idOrPrefix))[0];
    if (exact !== undefined) return recordOf(exact);
    const matches = this.rows(this.db.selectFrom("evals").selectAll().where(sql<string>`substr(id, 1, ${idOrPrefix.length})`, "=", idOrPrefix));
    return matches.length === 1 ? recordOf(matches[0]!) : undefined;
  }

  listEvals(): EvalRecord[] {
    if (!this.tables) return [];
    return this.rows(this.db.selectFrom("evals").selectAll().orderBy("seq")).map(recordOf);
  }

  close(): void {
    this.connection.close();
  }

  private rows<Row>(query: { compile(): CompiledQuery<Row> }): Row[] {
    return this.connection.rows<Row>(query.compile());
  }

  private execute(query: { compile(): CompiledQuery }): void {
    if (!this.tables) throw new StoreError(`the eval store ${this.location} is open read-only`);
    this.connection.execute(query.compile());
  }
}

function recordOf(row: StoreRow<"evals">): EvalRecord {
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
