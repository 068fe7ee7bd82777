/** One search/replace edit of a Modifier reply. */
export interface SearchReplaceEdit {
  /** The file edited: one of the files the reply was parsed for (`env.py` or `oracle.py` for a program). */
  readonly file: string;
  /** Lines to find in the file (whole lines). */
  readonly search: string;
  /** Lines to put in their place. */
  readonly replace: string;
}

const SEARCH_LINE = /^<{5,9}\s*SEARCH\b[:\s]*`?([^\s`]*)`?\s*$/i;
const DIVIDER_LINE = /^={5,9}[ \t]*$/;
const REPLACE_LINE = /^>{5,9}\s*REPLACE[ \t]*$/i;

/** What {@link parseSearchReplace} read from a reply. */
export interface SearchReplaceReply {
  /** The blocks that edit `env.py` or `oracle.py`, in order. */
  readonly edits: readonly SearchReplaceEdit[];
  /** Why some block cannot be used: it names another file, or the reply ends inside it; empty when every block is usable. */
  readonly problems: readonly string[];
  /** The reply without its blocks (where a JSON block of manifest changes belongs). */
  readonly rest: string;
}

/**
 * The search/replace blocks of a reply (the aider-style format small models
 * write more reliably than unified diffs):
 *
 * ```text
 * <<<<<<< SEARCH env.py
 * lines copied from the file
 * =======
 * the lines that replace them
 * >>>>>>> REPLACE
 * ```
 *
 * anywhere in the reply, fenced or not (a fence line opening or closing a
 * SEARCH or REPLACE section, blank lines aside, is dropped). The file name
 * after `SEARCH` is optional (default `env.py`), may follow a colon or sit in
 * backticks, may carry a folder and is read without regard to case; a block
 * naming another file (e.g. `env.json`) and a block the reply ends inside are
 * {@link SearchReplaceReply.problems}. Linear in the reply's length.
 */
export function parseSearchReplace(completion: string, files: readonly string[] = PROGRAM_FILES): SearchReplaceReply {
  const edits: SearchReplaceEdit[] = [];
  const problems: string[] = [];
  const rest: string[] = [];
  // one pass over the lines: a SEARCH line opens a block, a divider switches to the replacement, REPLACE closes it
  let open: { file: string | null; named: string; search: string[]; replace: string[] | null } | null = null;
  for (const raw of completion.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const search = SEARCH_LINE.exec(line);
    if (search !== null) {
      if (open !== null) problems.push(`a block for ${open.named} has no '>>>>>>> REPLACE' line before the next SEARCH`);
      const named = search[1] === undefined || search[1] === "" ? (files[0] as string) : search[1];
      open = { file: editedFile(named, files), named, search: [], replace: null };
    } else if (open === null) {
      rest.push(raw);
    } else if (open.replace === null && DIVIDER_LINE.test(line)) {
      open.replace = [];
    } else if (open.replace !== null && REPLACE_LINE.test(line)) {
      if (open.file === null) problems.push(`a block names ${open.named}: blocks edit ${files.join(" or ")} only${files === PROGRAM_FILES ? "; put manifest changes in a json block" : ""}`);
      else edits.push({ file: open.file, search: lines(withoutFences(open.search)), replace: lines(withoutFences(open.replace)) });
      open = null;
    } else {
      (open.replace ?? open.search).push(line);
    }
  }
  if (open !== null) problems.push(`the reply ends inside a block for ${open.named} (no '>>>>>>> REPLACE' line; cut off at the token bound?): send fewer or shorter blocks`);
  return { edits, problems, rest: rest.join("\n") };
}

/** The files a program's Modifier edits. */
export const PROGRAM_FILES: readonly string[] = ["env.py", "oracle.py"];

/**
 * The file of `files` a block's name means: the same path without regard to case (a leading `./`
 * or `a/`-style folder the name adds is tolerated when its base name matches one file only), or null.
 */
function editedFile(named: string, files: readonly string[]): string | null {
  const wanted = named.replace(/^\.\//, "").toLowerCase();
  const exact = files.find((file) => file.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const base = (wanted.split(/[\\/]/).pop() ?? "").toLowerCase();
  const byBase = files.filter((file) => (file.split("/").pop() ?? "").toLowerCase() === base);
  return byBase.length === 1 ? (byBase[0] as string) : null;
}

const FENCE_LINE = /^\s*```[\w.-]*\s*$/;

/** A section without the code fence small models wrap it in: a fence line that is the first (or last) non-blank line goes, with the blank lines outside it. */
function withoutFences(list: readonly string[]): string[] {
  let start = 0;
  let end = list.length;
  const first = list.findIndex((line) => line.trim() !== "");
  if (first >= 0 && FENCE_LINE.test(list[first] as string)) start = first + 1;
  let last = end - 1;
  while (last >= start && (list[last] as string).trim() === "") last -= 1;
  if (last >= start && FENCE_LINE.test(list[last] as string)) end = last;
  return list.slice(start, end);
}

function lines(list: readonly string[]): string {
  return list.length === 0 ? "" : `${list.join("\n")}\n`;
}

/** Result of {@link applySearchReplace}: the new source, or why an edit does not apply. */
export type SearchReplaceResult = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly message: string };

/**
 * Applies one edit to a source: the search lines must occur exactly once,
 * compared line by line without trailing whitespace, else (when that finds
 * nothing) without any surrounding whitespace. In the second case, when the
 * search and the replacement agree with each other on the first line's
 * indentation but not with the file, the replacement is shifted by the
 * difference (a model that dropped or added a level of indentation in both).
 * A search with no non-blank line, none or several matches is an error whose
 * message says what to send; for none it shows the file's lines closest to the
 * search ({@link closestLines}), so a repair can copy them.
 */
export function applySearchReplace(source: string, edit: SearchReplaceEdit): SearchReplaceResult {
  const lines = source.split("\n");
  const search = trimBlankEnds(edit.search.replace(/\r\n/g, "\n").split("\n"));
  if (search.length === 0) return { ok: false, message: `a SEARCH block for ${edit.file} is empty; copy the lines to change from ${edit.file}` };
  // "" deletes the lines; "\n" is one blank line
  const replaceLines = edit.replace === "" ? [] : edit.replace.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  for (const compare of [(line: string) => line.trimEnd(), (line: string) => line.trim()]) {
    const wanted = search.map(compare);
    const starts: number[] = [];
    for (let start = 0; start + wanted.length <= lines.length; start += 1) {
      if (wanted.every((line, offset) => compare(lines[start + offset] as string) === line)) starts.push(start);
    }
    if (starts.length > 1) return { ok: false, message: `the SEARCH lines starting "${search[0]?.trim().slice(0, 80)}" occur ${starts.length} times in ${edit.file}; include more lines so they occur once` };
    const start = starts[0];
    if (start !== undefined) {
      const shift = indentation(lines[start] as string) - indentation(search[0] as string);
      const firstReplaced = replaceLines.find((line) => line.trim() !== "");
      const consistent = firstReplaced !== undefined && indentation(firstReplaced) === indentation(search[0] as string);
      const placed = shift !== 0 && consistent ? replaceLines.map((line) => reindent(line, shift)) : replaceLines;
      return { ok: true, source: [...lines.slice(0, start), ...placed, ...lines.slice(start + search.length)].join("\n") };
    }
  }
  const closest = closestLines(lines, search);
  const shown = closest === null ? "" : `; the closest lines in ${edit.file} are:\n${closest}`;
  return { ok: false, message: `the SEARCH lines starting "${search[0]?.trim().slice(0, 80)}" are not in ${edit.file}; copy them exactly from the file${shown}` };
}

/** Lines of context shown around the closest match. */
const CLOSEST_CONTEXT = 2;

/**
 * The run of the file's lines most like the search (as many lines as the
 * search plus {@link CLOSEST_CONTEXT} on each side, at most 12), chosen by the
 * number of shared words with the search; null when no line shares a word.
 * Linear in the file's lines times the search's length (at most 8).
 */
export function closestLines(fileLines: readonly string[], search: readonly string[]): string | null {
  const words = (line: string) => line.match(/[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]+/g) ?? [];
  const wanted = new Set(search.flatMap(words));
  if (wanted.size === 0) return null;
  const scores = fileLines.map((line) => [...new Set(words(line))].filter((word) => wanted.has(word)).length);
  const span = Math.min(search.length, 8, fileLines.length);
  let best = -1;
  let bestScore = 0;
  for (let start = 0; start + span <= fileLines.length; start += 1) {
    let score = 0;
    for (let offset = 0; offset < span; offset += 1) score += scores[start + offset] as number;
    if (score > bestScore) {
      best = start;
      bestScore = score;
    }
  }
  if (best < 0) return null;
  const from = Math.max(0, best - CLOSEST_CONTEXT);
  const to = Math.min(fileLines.length, best + span + CLOSEST_CONTEXT);
  return fileLines.slice(from, to).join("\n");
}

function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

function reindent(line: string, shift: number): string {
  if (line.trim() === "") return line;
  return shift > 0 ? `${" ".repeat(shift)}${line}` : line.slice(Math.min(-shift, indentation(line)));
}

function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === "") start += 1;
  while (end > start && (lines[end - 1] as string).trim() === "") end -= 1;
  return lines.slice(start, end);
}
