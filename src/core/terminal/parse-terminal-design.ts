import { reject, type RejectVerdict } from "../../spec/index.js";

/** The files of a Designer's terminal task, by path in the task folder. */
export type TaskFiles = Readonly<Record<string, string>>;

/** Files every terminal design must hold. */
export const REQUIRED_TASK_FILES = ["task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "solution/solve.sh"] as const;

/** Most files a design may hold, and the largest one (characters). */
export const MAX_DESIGN_FILES = 16;
export const MAX_DESIGN_FILE_CHARS = 64 * 1024;

/** One path segment: letters, digits, `_ . -`, but not `.` or `..`. */
const SEGMENT = String.raw`(?!\.{1,2}(?:\/|$))[\w.-]+`;
const PATH = new RegExp(String.raw`^(task\.toml|instruction\.md|environment\/${SEGMENT}(?:\/${SEGMENT})*|tests\/${SEGMENT}|solution\/${SEGMENT})$`);
const BLOCK = /```([^\n`]*)\n([\s\S]*?)```/g;
const FIRST_LINE_PATH = /^\s*(?:#|\/\/|<!--)\s*(?:file:\s*)?([\w./-]+)\s*(?:-->)?\s*$/;

/** The path a block names: a path word in its info string (```bash tests/test.sh), else a first line `# file: path`. */
function blockPath(info: string, body: string): { path: string; body: string } | null {
  for (const word of info.trim().split(/\s+/)) {
    const candidate = word.replace(/^file:/, "");
    if (PATH.test(candidate)) return { path: candidate, body };
  }
  const [first = "", ...rest] = body.split("\n");
  const named = FIRST_LINE_PATH.exec(first);
  if (named !== null && PATH.test(named[1] as string)) return { path: named[1] as string, body: rest.join("\n") };
  return null;
}

/**
 * The task files a reply's fenced blocks name (see {@link parseTerminalDesign} for the block
 * forms); blocks naming no task path are left out, a later block replaces an earlier one.
 */
export function taskFileBlocks(completion: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const match of completion.matchAll(BLOCK)) {
    const named = blockPath(match[1] ?? "", match[2] ?? "");
    if (named === null) continue;
    files[named.path] = named.body.endsWith("\n") ? named.body : `${named.body}\n`;
  }
  return files;
}

/**
 * Reads a Designer's terminal task: one fenced block per file, the file's path in the block's
 * info string (```` ```bash tests/test.sh ````) or on its first line (`# file: tests/test.sh`).
 * Paths are those of a Harbor task folder (task.toml, instruction.md, environment/…, tests/…,
 * solution/…); a block naming no such path is ignored, a later block for the same path replaces
 * the earlier one. Reject verdicts (gate `parse`): `unparseable` (no file block),
 * `missing_task_file` (a required file is absent), `too_large` (too many files, or one too long).
 * Never throws.
 */
export function parseTerminalDesign(completion: string): { readonly ok: true; readonly files: TaskFiles } | { readonly ok: false; readonly verdict: RejectVerdict } {
  const files = taskFileBlocks(completion);
  const paths = Object.keys(files);
  if (paths.length === 0) return { ok: false, verdict: reject("parse", "unparseable", "the completion holds no fenced block naming a task file (```bash tests/test.sh)") };
  const missing = REQUIRED_TASK_FILES.filter((path) => files[path] === undefined || (files[path] as string).trim() === "");
  if (missing.length > 0) return { ok: false, verdict: reject("parse", "missing_task_file", `the task lacks ${missing.join(", ")}`, { files: paths }) };
  const long = paths.find((path) => (files[path] as string).length > MAX_DESIGN_FILE_CHARS);
  if (paths.length > MAX_DESIGN_FILES || long !== undefined) {
    return { ok: false, verdict: reject("parse", "too_large", long === undefined ? `${paths.length} files (at most ${MAX_DESIGN_FILES})` : `${long} is over ${MAX_DESIGN_FILE_CHARS} characters`, { files: paths }) };
  }
  return { ok: true, files };
}
