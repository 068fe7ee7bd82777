import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../spec/index.js";
import { RUN_FILES } from "../core/selfplay/index.js";
import { holdsRunStore, STORE_POINTER_FILE } from "../adapters/store/index.js";

/** Folder that holds runs and evolutions when `--out` is not given. */
export const RUNS_FOLDER = "runs";

/** The kinds of folder under {@link RUNS_FOLDER}: `run-<UTC timestamp>` (self-play) and `evolve-<UTC timestamp>` (evolution). */
export type RunKind = "run" | "evolve";

/** A new folder `runs/<kind>-<UTC timestamp>` (e.g. `runs/run-20261202T041730Z`); nothing is created. */
export function newRunFolder(kind: RunKind, now: Date = new Date()): string {
  return join(RUNS_FOLDER, `${kind}-${now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`);
}

/**
 * The newest `runs/<kind>-*` folder (names sort by their timestamp).
 * @param whenMissing the error message when there is none (it should say what to pass instead)
 * @throws ConfigError with `whenMissing` when there is none
 */
export function newestRunFolder(kind: RunKind, whenMissing: string): string {
  const prefix = `${kind}-`;
  const folders = existsSync(RUNS_FOLDER) ? readdirSync(RUNS_FOLDER).filter((name) => name.startsWith(prefix)).sort() : [];
  const newest = folders.at(-1);
  if (newest === undefined) throw new ConfigError(whenMissing);
  return join(RUNS_FOLDER, newest);
}

/**
 * The evolution directory a command reads: `from`, else the newest
 * `runs/evolve-*`.
 * @throws ConfigError when there is none or it holds no store
 */
export function evolutionDirectory(from: string | undefined): string {
  const folder = from ?? newestRunFolder("evolve", `no evolution in ${RUNS_FOLDER}/; pass --from with the directory of an envforge evolve run`);
  if (!holdsRunStore(folder)) throw new ConfigError(`${folder} holds no evolution (${join(folder, RUN_FILES.store)} not found, nor a ${STORE_POINTER_FILE} naming a PostgreSQL store)`);
  return folder;
}
