import { sql, type CompiledQuery, type CreateTableBuilder, type Kysely } from "kysely";
import { StoreError } from "../../spec/index.js";
import type { SqlConnection, SqlDialect } from "./sql-connection.js";
import { queryBuilder } from "./sql-dialects.js";
import type { StoreTables } from "./store-tables.js";

/** The tables one store keeps: a run's memory, the evaluations, or the job queue's results. */
export type StoreComponent = "run" | "eval" | "jobs";

/** One step of a component's schema, applied once, in order, inside the migration transaction. */
interface Migration {
  readonly version: number;
  readonly apply: (connection: SqlConnection) => void;
}

/** Advisory lock key of migrations (PostgreSQL): two processes opening one new store migrate one at a time. */
const MIGRATION_LOCK = 0x656e7666;

/**
 * Brings `component`'s tables to the newest schema this envforge knows, on open: runs the
 * migrations the store has not had yet, in one transaction under a database-wide lock, and records
 * the version in `envforge_schema`. A SQLite file written before versions were recorded has the
 * run tables already, perhaps without the designs' token columns: version 1 adds what is missing.
 *
 * @returns the store's schema version after migrating
 * @throws StoreError when the store was written by a newer envforge (its schema version is higher
 *   than this one knows); nothing is changed then
 */
export function migrate(connection: SqlConnection, component: StoreComponent): number {
  const newest = newestSchemaVersion(component);
  const db = queryBuilder(connection.dialect);
  return connection.exclusive(MIGRATION_LOCK, () => {
    connection.execute(
      db.schema
        .createTable("envforge_schema")
        .ifNotExists()
        .addColumn("component", "text", (column) => column.primaryKey())
        .addColumn("version", "integer", (column) => column.notNull())
        .compile(),
    );
    const row = connection.rows<{ version: number }>(db.selectFrom("envforge_schema").select("version").where("component", "=", component).compile())[0];
    const current = row?.version ?? 0;
    if (current > newest) throw newerSchema(component, current, newest);
    for (const migration of MIGRATIONS[component]) if (migration.version > current) migration.apply(connection);
    if (current < newest) {
      connection.execute(
        db
          .insertInto("envforge_schema")
          .values({ component, version: newest })
          .onConflict((conflict) => conflict.column("component").doUpdateSet({ version: newest }))
          .compile(),
      );
    }
    return newest;
  });
}

/**
 * For a store opened read-only: whether `component`'s tables are there (a file or schema nothing
 * wrote yet holds none, and reads as empty).
 * @throws StoreError when they were written by a newer envforge
 */
export function readableSchema(connection: SqlConnection, component: StoreComponent): boolean {
  const db = queryBuilder(connection.dialect);
  const tables = new Set(
    connection
      .rows<{ name: string }>(
        connection.dialect === "sqlite"
          ? sql`SELECT name FROM sqlite_master WHERE type = 'table'`.compile(db)
          : sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`.compile(db),
      )
      .map((row) => row.name),
  );
  if (tables.has("envforge_schema")) {
    const row = connection.rows<{ version: number }>(db.selectFrom("envforge_schema").select("version").where("component", "=", component).compile())[0];
    const newest = newestSchemaVersion(component);
    if (row !== undefined && row.version > newest) throw newerSchema(component, row.version, newest);
  }
  const wanted = { run: ["meta", "environments", "rounds", "designs", "episodes"], eval: ["evals", "eval_items"], jobs: ["job_results"] }[component];
  return wanted.every((name) => tables.has(name));
}

/** The schema version of `component` this envforge writes. */
export function newestSchemaVersion(component: StoreComponent): number {
  const migrations = MIGRATIONS[component];
  return migrations[migrations.length - 1]!.version;
}

function newerSchema(component: StoreComponent, version: number, newest: number): StoreError {
  return new StoreError(`this store's ${component} schema is version ${version}, newer than this envforge knows (${newest}): upgrade envforge to open it`);
}

type Builder = Kysely<StoreTables>;

/** An auto-numbered primary key `seq`: INTEGER AUTOINCREMENT in SQLite, SERIAL in PostgreSQL. */
function withSequence<T extends string>(table: CreateTableBuilder<T, never>, dialect: SqlDialect): CreateTableBuilder<T, "seq"> {
  return dialect === "sqlite"
    ? table.addColumn("seq", "integer", (column) => column.primaryKey().autoIncrement())
    : table.addColumn("seq", "serial", (column) => column.primaryKey());
}

const REAL = "double precision";

/** Applies the CREATE statements of `tables` (each `IF NOT EXISTS`). */
function createTables(tables: (db: Builder, dialect: SqlDialect) => readonly { compile(): CompiledQuery }[]): (connection: SqlConnection) => void {
  return (connection) => {
    for (const statement of tables(queryBuilder(connection.dialect), connection.dialect)) connection.execute(statement.compile());
  };
}

const RUN_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    apply: (connection) => {
      createTables(runTables)(connection);
      if (connection.dialect === "sqlite") addLegacyDesignColumns(connection);
    },
  },
];

const EVAL_MIGRATIONS: readonly Migration[] = [{ version: 1, apply: createTables(evalTables) }];

const JOB_MIGRATIONS: readonly Migration[] = [{ version: 1, apply: createTables(jobTables) }];

const MIGRATIONS: Record<StoreComponent, readonly Migration[]> = { run: RUN_MIGRATIONS, eval: EVAL_MIGRATIONS, jobs: JOB_MIGRATIONS };

function runTables(db: Builder, dialect: SqlDialect) {
  const table = (name: keyof StoreTables) => db.schema.createTable(name).ifNotExists();
  return [
    table("meta")
      .addColumn("key", "text", (column) => column.primaryKey())
      .addColumn("value", "text", (column) => column.notNull()),
    withSequence(table("environments"), dialect)
      .addColumn("id", "text", (column) => column.notNull().unique())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("origin", "text", (column) => column.notNull())
      .addColumn("parent_id", "text")
      .addColumn("generation", "integer", (column) => column.notNull())
      .addColumn("round", "integer")
      .addColumn("package", "text", (column) => column.notNull())
      .addColumn("scores", "text")
      .addColumn("designer_reward", REAL),
    table("rounds")
      .addColumn("round", "integer", (column) => column.primaryKey())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("solver_phase_done", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("report", "text"),
    table("designs")
      .addColumn("round", "integer", (column) => column.notNull())
      .addColumn("idx", "integer", (column) => column.notNull())
      .addColumn("prompt_hash", "text", (column) => column.notNull())
      .addColumn("corpus_document_ids", "text", (column) => column.notNull())
      .addColumn("completion", "text", (column) => column.notNull())
      .addColumn("verdicts", "text", (column) => column.notNull())
      .addColumn("environment_id", "text")
      .addColumn("reward", REAL, (column) => column.notNull())
      .addColumn("policy_version", "integer")
      .addColumn("tokens", "text")
      .addColumn("repairs", "text")
      .addPrimaryKeyConstraint("designs_key", ["round", "idx"]),
    withSequence(table("episodes"), dialect)
      .addColumn("round", "integer", (column) => column.notNull())
      .addColumn("environment_id", "text", (column) => column.notNull())
      .addColumn("role", "text", (column) => column.notNull())
      .addColumn("hint", "integer", (column) => column.notNull())
      .addColumn("policy_version", "integer", (column) => column.notNull())
      .addColumn("seed", "bigint", (column) => column.notNull())
      .addColumn("return", REAL, (column) => column.notNull())
      .addColumn("won", "integer", (column) => column.notNull())
      .addColumn("turns", "integer", (column) => column.notNull())
      .addColumn("failure", "text")
      .addColumn("episode", "text", (column) => column.notNull()),
    db.schema.createIndex("episodes_round").ifNotExists().on("episodes").columns(["round", "role"]),
    withSequence(table("lineages"), dialect)
      .addColumn("id", "text", (column) => column.notNull().unique())
      .addColumn("seed_id", "text", (column) => column.notNull())
      .addColumn("record", "text", (column) => column.notNull()),
    table("generations")
      .addColumn("lineage_id", "text", (column) => column.notNull())
      .addColumn("generation", "integer", (column) => column.notNull())
      .addColumn("environment_id", "text", (column) => column.notNull())
      .addColumn("parent_id", "text", (column) => column.notNull())
      .addColumn("record", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("generations_key", ["lineage_id", "generation"]),
    table("evolution_attempts")
      .addColumn("lineage_id", "text", (column) => column.notNull())
      .addColumn("generation", "integer", (column) => column.notNull())
      .addColumn("attempt", "integer", (column) => column.notNull())
      .addColumn("outcome", "text", (column) => column.notNull())
      .addColumn("record", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("evolution_attempts_key", ["lineage_id", "generation", "attempt"]),
    withSequence(table("frontier_probes"), dialect)
      .addColumn("lineage_id", "text", (column) => column.notNull())
      .addColumn("round", "integer", (column) => column.notNull())
      .addColumn("record", "text", (column) => column.notNull())
      .addUniqueConstraint("frontier_probes_key", ["lineage_id", "round"]),
  ];
}

function evalTables(db: Builder, dialect: SqlDialect) {
  const table = (name: keyof StoreTables) => db.schema.createTable(name).ifNotExists();
  return [
    withSequence(table("evals"), dialect)
      .addColumn("id", "text", (column) => column.notNull().unique())
      .addColumn("model", "text", (column) => column.notNull())
      .addColumn("checkpoint", "text")
      .addColumn("suite_version", "text", (column) => column.notNull())
      .addColumn("plan", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("finished_at", "text"),
    table("eval_items")
      .addColumn("eval_id", "text", (column) => column.notNull())
      .addColumn("suite", "text", (column) => column.notNull())
      .addColumn("task", "text", (column) => column.notNull())
      .addColumn("idx", "integer", (column) => column.notNull())
      .addColumn("bucket", "text")
      .addColumn("seed", "bigint", (column) => column.notNull())
      .addColumn("score", REAL, (column) => column.notNull())
      .addColumn("won", "integer", (column) => column.notNull())
      .addColumn("error_code", "text")
      .addColumn("result", "text", (column) => column.notNull())
      .addColumn("seq", "integer", (column) => column.notNull())
      .addPrimaryKeyConstraint("eval_items_key", ["eval_id", "suite", "task", "idx"]),
  ];
}

function jobTables(db: Builder) {
  return [
    db.schema
      .createTable("job_results")
      .ifNotExists()
      .addColumn("kind", "text", (column) => column.notNull())
      .addColumn("key", "text", (column) => column.notNull())
      .addColumn("result", "text", (column) => column.notNull())
      .addColumn("seconds", REAL, (column) => column.notNull())
      .addColumn("worker", "text", (column) => column.notNull())
      .addColumn("stored_at", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("job_results_key", ["kind", "key"]),
  ];
}

/** SQLite stores written before training landed lack the designs' token columns. */
function addLegacyDesignColumns(connection: SqlConnection): void {
  const db = queryBuilder("sqlite");
  const columns = new Set(connection.rows<{ name: string }>(sql`SELECT name FROM pragma_table_info('designs')`.compile(db)).map((column) => column.name));
  for (const [name, type] of [
    ["policy_version", "integer"],
    ["tokens", "text"],
    ["repairs", "text"],
  ] as const) {
    if (!columns.has(name)) connection.execute(db.schema.alterTable("designs").addColumn(name, type).compile());
  }
}
