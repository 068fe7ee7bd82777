import { reject, type RejectVerdict } from "../../spec/index.js";
import { taskFileBlocks, type TaskFiles } from "../terminal/parse-terminal-design.js";
import { applySearchReplace, parseSearchReplace } from "./search-replace.js";

/** A terminal child built from a Modifier reply, or why not. */
export type TerminalChildResult = { readonly ok: true; readonly files: TaskFiles; readonly form: "replace" | "files" } | { readonly ok: false; readonly verdict: RejectVerdict };

/**
 * Builds a terminal task's child from a Modifier reply (untrusted), in one of two forms:
 * search/replace blocks (`<<<<<<< SEARCH tests/test.sh` … `>>>>>>> REPLACE`) against the parent's
 * files, applied in order, or whole files as fenced blocks naming their path (```` ```bash
 * solution/solve.sh ````; a new data file under `environment/` too), merged over the parent's.
 * Reject verdicts (gate `modify`): `patch_failed` (a block does not apply or names no task file),
 * `no_change_found`, `child_unchanged`. Never throws.
 */
export function buildTerminalChild(parent: TaskFiles, completion: string): TerminalChildResult {
  const reply = parseSearchReplace(completion, Object.keys(parent));
  if (reply.problems.length > 0) return { ok: false, verdict: reject("modify", "patch_failed", reply.problems.join("; ")) };
  let files: Record<string, string> = { ...parent };
  let form: "replace" | "files";
  if (reply.edits.length > 0) {
    form = "replace";
    for (const edit of reply.edits) {
      const applied = applySearchReplace(files[edit.file] as string, edit);
      if (!applied.ok) return { ok: false, verdict: reject("modify", "patch_failed", applied.message) };
      files[edit.file] = applied.source;
    }
  } else {
    const blocks = taskFileBlocks(completion);
    if (Object.keys(blocks).length === 0) return { ok: false, verdict: reject("modify", "no_change_found", "the reply holds no search/replace block and no fenced block naming a task file (```bash tests/test.sh)") };
    form = "files";
    files = { ...files, ...blocks };
  }
  if (Object.keys(files).length === Object.keys(parent).length && Object.entries(files).every(([path, text]) => parent[path] === text)) {
    return { ok: false, verdict: reject("modify", "child_unchanged", "the child's files equal the parent's") };
  }
  return { ok: true, files, form };
}
