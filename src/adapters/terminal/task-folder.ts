import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Largest file read into a task's file map, bytes (larger files are left out). */
const MAX_FILE_BYTES = 64 * 1024;

/**
 * The text files of a task folder by relative path (`task.toml`, `environment/Dockerfile`, …), for
 * showing a task to the Designer. Files over 64 KiB and dot-files are left out.
 */
export function readTaskFiles(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".") || entry.name === "expected.json") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size <= MAX_FILE_BYTES) files[relative(folder, path).split(sep).join("/")] = readFileSync(path, "utf8");
    }
  };
  walk(folder);
  return files;
}

/**
 * Writes a task's files into `folder` (created), scripts executable. Each path must stay inside
 * the folder.
 * @throws RangeError for a path that leaves the folder
 */
export function writeTaskFolder(files: Readonly<Record<string, string>>, folder: string): void {
  const root = resolve(folder);
  for (const [path, content] of Object.entries(files)) {
    const target = resolve(root, path);
    if (!target.startsWith(root + sep)) throw new RangeError(`task file ${path} leaves the task folder`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
}
