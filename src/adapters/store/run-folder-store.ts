import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { redactedUrl } from "./postgres-connection.js";
import { PostgresStore } from "./postgres-store.js";
import { SqliteStore } from "./sqlite-store.js";
import { ConfigError, RUN_STORE_FILE, type Store } from "../../spec/index.js";
import { makeDirectory } from "../../support/make-directory.js";
import { withoutPassword } from "./postgres-connection.js";

/** The file in a run folder that says where the run's store lives when it is not the folder's SQLite file. */
export const STORE_POINTER_FILE = "store.json";

/**
 * Where a run's store lives: the SQLite file `envforge.db` in its folder (the default), or a
 * schema of a PostgreSQL database, named after the folder (`runs/demo` → `run_demo`).
 */
export type RunStoreLocation = { readonly backend: "sqlite"; readonly path: string } | { readonly backend: "postgres"; readonly url: string; readonly schema: string };

const PointerSchema = z.object({ backend: z.literal("postgres"), url: z.string().regex(/^postgres(ql)?:\/\//), schema: z.string().regex(/^run_[a-z0-9_]{1,59}$/) }).strict();

/** Whether `url` names a PostgreSQL server (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/**
 * The schema of the run in `runFolder`: `run_` and the folder's name when it is lower-case letters,
 * digits and `_` (at most 59 of them); else `run_`, the name in lower case with every other character
 * made `_` (at most 50), `_` and 8 hex digits of the name's SHA-256, so distinct names never share a
 * schema. Two machines that name the same folder name the same run.
 */
export function runSchema(runFolder: string): string {
  const name = basename(resolve(runFolder));
  const plain = name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  // a name that had to change (case, other characters) or is too long gets a hash of itself, so Demo, demo, a-b and a_b are four runs
  if (plain === name && name.length <= 59) return `run_${name}`;
  return `run_${plain.slice(0, 50)}_${createHash("sha256").update(name).digest("hex").slice(0, 8)}`;
}

/**
 * Where the store of the run in `runFolder` lives.
 * @param storeUrl `--store` / `store.url`: a PostgreSQL URL, or null for the folder's pointer
 *   file if it has one, else its SQLite file
 * @throws ConfigError when `storeUrl` is not a PostgreSQL URL, or the pointer file does not parse
 */
export function runStoreLocation(runFolder: string, storeUrl: string | null): RunStoreLocation {
  if (storeUrl !== null) {
    if (!isPostgresUrl(storeUrl) || !URL.canParse(storeUrl)) throw new ConfigError(`--store must be a PostgreSQL URL (postgres://user@host:5432/db), got ${JSON.stringify(redactedUrl(storeUrl))}; without it the run's store is ${join(runFolder, RUN_STORE_FILE)}`);
    return { backend: "postgres", url: storeUrl, schema: runSchema(runFolder) };
  }
  const pointer = join(runFolder, STORE_POINTER_FILE);
  if (existsSync(pointer)) {
    let parsed: z.infer<typeof PointerSchema>;
    try {
      parsed = PointerSchema.parse(JSON.parse(readFileSync(pointer, "utf8")));
    } catch (error) {
      throw new ConfigError(`${pointer} does not say where the run's store is (it must be {"backend": "postgres", "url": "postgres://…", "schema": "run_…"}): ${error instanceof SyntaxError ? error.message : "wrong fields"}`);
    }
    return { backend: "postgres", url: parsed.url, schema: parsed.schema };
  }
  return { backend: "sqlite", path: join(runFolder, RUN_STORE_FILE) };
}

/**
 * Opens the store at `location`. Opening a PostgreSQL store writes the run folder's pointer file
 * (its URL without a password: give the password by `PGPASSWORD` or `~/.pgpass`, as libpq reads
 * them), so later commands on the folder (`eval --run`, `lineage`, `--resume`) find it.
 * @throws StoreError when the store cannot be opened
 */
export function openRunStore(runFolder: string, location: RunStoreLocation): Store {
  const store = openStoreAt(location);
  if (location.backend === "sqlite") return store;
  makeDirectory(runFolder);
  const pointer = { backend: "postgres", url: withoutPassword(location.url), schema: location.schema };
  writeFileSync(join(runFolder, STORE_POINTER_FILE), `${JSON.stringify(pointer, null, 2)}\n`);
  return store;
}

/**
 * Opens the store at `location` and nothing else (no pointer file is written): for commands that
 * read a run.
 * @throws StoreError when the store cannot be opened
 */
export function openStoreAt(location: RunStoreLocation): Store {
  return location.backend === "sqlite" ? new SqliteStore(location.path) : new PostgresStore(location.url, location.schema);
}

/**
 * The store of the run (or evolution) in `runFolder`, found through its pointer file or its SQLite
 * file: what `eval --run`, `lineage`, `evolve --from` and the like read.
 * @throws StoreError when the store cannot be opened
 */
export function openRunFolderStore(runFolder: string): Store {
  return openStoreAt(runStoreLocation(runFolder, null));
}

/** Whether `runFolder` holds a run's store: its SQLite file, or a pointer to a PostgreSQL schema. */
export function holdsRunStore(runFolder: string): boolean {
  return existsSync(join(runFolder, RUN_STORE_FILE)) || existsSync(join(runFolder, STORE_POINTER_FILE));
}

/** Whether a run was ever stored at `location` (a SQLite file exists; a PostgreSQL schema holds a run config). */
export function runStored(location: RunStoreLocation): boolean {
  if (location.backend === "sqlite") return existsSync(location.path);
  const store = new PostgresStore(location.url, location.schema);
  try {
    return store.getMeta("config") !== undefined || store.listRounds().length > 0 || store.listLineages().length > 0;
  } finally {
    store.close();
  }
}

/** Says where `location` is, for messages (no password). */
export function describeRunStore(location: RunStoreLocation): string {
  return location.backend === "sqlite" ? location.path : `${redactedUrl(location.url)} (schema ${location.schema})`;
}
