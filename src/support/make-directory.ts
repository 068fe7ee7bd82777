import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates a directory and its missing parents, one level at a time.
 * Node 20's `mkdirSync(path, { recursive: true })` loops forever under
 * pseudo file systems such as `/proc`; this walks up to the nearest existing
 * ancestor and creates each level with a plain `mkdirSync`, so every failure
 * surfaces as an error.
 *
 * @throws Error (ENOENT, EACCES, EROFS, ENOTDIR, ...) when a level cannot be created
 */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      if (!statSync(current).isDirectory()) {
        throw Object.assign(new Error(`${current} exists and is not a directory`), { code: "ENOTDIR" });
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      missing.push(current);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
