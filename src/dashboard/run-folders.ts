import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";

/** File names inside a run or evolution folder (the same as `RUN_FILES` of the self-play loop). */
export const FOLDER_FILES = { store: "envforge.db", report: "report.json", metrics: "metrics.jsonl" } as const;

/** One folder the dashboard shows: a self-play run or an evolution. */
export interface RunFolder {
  /** URL-safe id, unique among the shown folders (the folder name, suffixed on clashes). */
  readonly id: string;
  /** Absolute path of the folder. */
  readonly path: string;
  readonly storePath: string;
  readonly metricsPath: string;
  readonly reportPath: string;
}

const isRunFolder = (path: string) => existsSync(join(path, FOLDER_FILES.store)) || existsSync(join(path, FOLDER_FILES.report));

/**
 * The folders to show for the `--out` arguments: a run or evolution folder (it holds
 * `envforge.db` or `report.json`) is shown as itself; any other existing folder (such as `runs/`)
 * contributes its sub-folders that are run or evolution folders, newest name last; a path that
 * does not exist is still listed, so its page can say the store is missing. Read on every call,
 * so runs started after the dashboard appear.
 */
export function discoverRunFolders(paths: readonly string[]): RunFolder[] {
  const found: string[] = [];
  for (const given of paths) {
    const path = resolve(given);
    if (!existsSync(path) || isRunFolder(path) || !statSync(path).isDirectory()) {
      found.push(path);
      continue;
    }
    const children = readdirSync(path)
      .sort()
      .map((name) => join(path, name))
      .filter((child) => statSync(child, { throwIfNoEntry: false })?.isDirectory() === true && isRunFolder(child));
    found.push(...(children.length > 0 ? children : [path]));
  }
  const used = new Set<string>();
  const folders: RunFolder[] = [];
  for (const path of [...new Set(found)]) {
    const stem = basename(path).replace(/[^A-Za-z0-9._-]/g, "_") || "run";
    let id = stem;
    for (let suffix = 2; used.has(id); suffix += 1) id = `${stem}-${suffix}`;
    used.add(id);
    folders.push({
      id,
      path,
      storePath: join(path, FOLDER_FILES.store),
      metricsPath: join(path, FOLDER_FILES.metrics),
      reportPath: join(path, FOLDER_FILES.report),
    });
  }
  return folders;
}
