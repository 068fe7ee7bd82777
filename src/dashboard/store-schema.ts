import type Database from "better-sqlite3";
import { StoreProblemError } from "./store-problem.js";

/** Tables every envforge store has had since the first release. */
const CORE_TABLES = ["meta", "environments", "rounds", "designs", "episodes"] as const;
/** Tables and columns added later, with what their absence means for the pages. */
const LATER_TABLES: Readonly<Record<string, string>> = {
  lineages: "lineages",
  generations: "lineage generations",
  evolution_attempts: "evolution attempts",
  frontier_probes: "frontier probes",
};
const LATER_DESIGN_COLUMNS: Readonly<Record<string, string>> = {
  policy_version: "policy versions of designs",
  tokens: "design tokens",
  repairs: "repair turns",
};

/** The tables and columns of one store, and what an older schema leaves out. */
export interface StoreSchema {
  readonly tables: ReadonlySet<string>;
  /** Columns of `designs`. */
  readonly designColumns: ReadonlySet<string>;
  /** One line per feature the store predates, e.g. "older schema: no repair turns (designs.repairs)". */
  readonly notices: readonly string[];
}

/**
 * Reads the schema of an envforge store and says which later additions it lacks.
 * @throws StoreProblemError `schema` when a core table is missing (not an envforge store)
 */
export function readStoreSchema(db: Database.Database, location: string): StoreSchema {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
  const missing = CORE_TABLES.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new StoreProblemError("schema", `${location} is not an envforge store: table${missing.length === 1 ? "" : "s"} ${missing.join(", ")} missing`);
  }
  const designColumns = new Set((db.prepare("PRAGMA table_info(designs)").all() as { name: string }[]).map((row) => row.name));
  const notices = [
    ...Object.entries(LATER_TABLES)
      .filter(([table]) => !tables.has(table))
      .map(([table, what]) => `older schema: no ${what} (table ${table})`),
    ...Object.entries(LATER_DESIGN_COLUMNS)
      .filter(([column]) => !designColumns.has(column))
      .map(([column, what]) => `older schema: no ${what} (designs.${column})`),
  ];
  return { tables, designColumns, notices };
}

/**
 * Parses a JSON column, or returns `fallback` when the text is not JSON (a damaged row is shown
 * as missing rather than failing the page).
 */
export function parseColumn<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
