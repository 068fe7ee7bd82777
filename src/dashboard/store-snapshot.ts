import { existsSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { StoreProblemError } from "./store-problem.js";

/**
 * How a store was opened for reading: `live` (a writer has it open: its `-wal` and `-shm` files
 * exist, so SQLite's read-only connection reads the newest committed state without creating
 * anything) or `snapshot` (no writer: the file's bytes are copied into memory, so no `-wal` or
 * `-shm` file is ever created in the run folder).
 */
export type SnapshotMode = "live" | "snapshot";

/** An open, read-only view of one store; close it after use. */
export interface StoreSnapshot {
  readonly db: Database.Database;
  readonly mode: SnapshotMode;
  /** Set when the snapshot may miss recent writes (a write-ahead log without shared memory). */
  readonly warning: string | null;
}

/** Options of {@link openStoreSnapshot}. */
export interface SnapshotOptions {
  /** How long a live read waits for a writer's lock, milliseconds. @default 1000 */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the SQLite store at `path` read-only without writing to or creating any file next to it.
 * A store with a write-ahead log and its shared-memory index (a running writer) is opened with
 * SQLite's read-only flag; any other store is read into memory (its WAL header marked as a rollback
 * journal in the in-memory copy only) and opened from there.
 *
 * @throws StoreProblemError `missing` when the file does not exist, `unreadable` when it cannot be
 *   read, `corrupt` when it is not an SQLite database
 */
export function openStoreSnapshot(path: string, options: SnapshotOptions = {}): StoreSnapshot {
  if (!existsSync(path)) throw new StoreProblemError("missing", `no store: ${path} does not exist`);
  const hasLog = existsSync(`${path}-wal`);
  if (hasLog && existsSync(`${path}-shm`)) {
    try {
      const db = new Database(path, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 1000 });
      return { db, mode: "live", warning: null };
    } catch (error) {
      throw new StoreProblemError("unreadable", `cannot open ${path} read-only: ${(error as Error).message}`, { cause: error });
    }
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new StoreProblemError("unreadable", `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (bytes.length < 100 || bytes.subarray(0, 16).toString("latin1") !== "SQLite format 3\u0000") {
    throw new StoreProblemError("corrupt", `${path} is not an SQLite database (${bytes.length} bytes, no SQLite header)`);
  }
  // bytes 18 and 19 are the read/write format versions: 2 = WAL, which an in-memory database cannot use
  if (bytes[18] === 2) bytes[18] = 1;
  if (bytes[19] === 2) bytes[19] = 1;
  try {
    const db = new Database(bytes, { readonly: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    const warning = hasLog
      ? `${path}-wal exists without its shared-memory file: a writer holds the store in exclusive mode or stopped abruptly; showing the last checkpointed state`
      : null;
    return { db, mode: "snapshot", warning };
  } catch (error) {
    throw new StoreProblemError("corrupt", `${path} is damaged: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Runs `read` on a fresh read-only snapshot of the store at `path` and closes it. SQLite's
 * `SQLITE_BUSY` / `SQLITE_LOCKED` become `locked`, `SQLITE_CORRUPT` / `SQLITE_NOTADB` `corrupt`.
 *
 * @throws StoreProblemError naming what is wrong with the store
 */
export function withStoreSnapshot<T>(path: string, read: (snapshot: StoreSnapshot) => T, options: SnapshotOptions = {}): T {
  const snapshot = openStoreSnapshot(path, options);
  try {
    return read(snapshot);
  } catch (error) {
    if (error instanceof StoreProblemError) throw error;
    const code = (error as { code?: unknown }).code;
    const message = (error as Error).message;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || String(code).startsWith("SQLITE_BUSY")) {
      throw new StoreProblemError("locked", `${path} is locked by another process (${message}); retrying on the next update`, { cause: error });
    }
    if (String(code).startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
      throw new StoreProblemError("corrupt", `${path} is damaged: ${message}`, { cause: error });
    }
    throw error;
  } finally {
    snapshot.db.close();
  }
}
