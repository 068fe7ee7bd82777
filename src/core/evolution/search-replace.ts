/** One search/replace edit of a Modifier reply. */
export interface SearchReplaceEdit {
  readonly file: "env.py" | "oracle.py";
  /** Lines to find in the file (whole lines). */
  readonly search: string;
  /** Lines to put in their place. */
  readonly replace: string;
}

const SEARCH_LINE = /^<{5,9}\s*SEARCH[ \t]*(env\.py|oracle\.py)?[ \t]*$/;
const DIVIDER_LINE = /^={5,9}[ \t]*$/;
const REPLACE_LINE = /^>{5,9}\s*REPLACE[ \t]*$/;

/**
 * The search/replace edits of a reply (the aider-style format small models
 * write more reliably than unified diffs): blocks of
 *
 * ```text
 * <<<<<<< SEARCH env.py
 * lines copied from the file
 * =======
 * the lines that replace them
 * >>>>>>> REPLACE
 * ```
 *
 * anywhere in the reply, fenced or not; the file name after `SEARCH` is
 * optional (default `env.py`). Linear in the reply's length.
 */
export function parseSearchReplace(completion: string): SearchReplaceEdit[] {
  const edits: SearchReplaceEdit[] = [];
  // one pass over the lines: a SEARCH line opens a block, a divider switches to the replacement, REPLACE closes it
  let open: { file: "env.py" | "oracle.py"; search: string[]; replace: string[] | null } | null = null;
  for (const raw of completion.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const search = SEARCH_LINE.exec(line);
    if (search !== null) {
      open = { file: (search[1] as "env.py" | "oracle.py" | undefined) ?? "env.py", search: [], replace: null };
    } else if (open === null) {
      continue;
    } else if (open.replace === null && DIVIDER_LINE.test(line)) {
      open.replace = [];
    } else if (open.replace !== null && REPLACE_LINE.test(line)) {
      edits.push({ file: open.file, search: lines(open.search), replace: lines(open.replace) });
      open = null;
    } else {
      (open.replace ?? open.search).push(line);
    }
  }
  return edits;
}

function lines(list: readonly string[]): string {
  return list.length === 0 ? "" : `${list.join("\n")}\n`;
}

/** Result of {@link applySearchReplace}: the new source, or why an edit does not apply. */
export type SearchReplaceResult = { readonly ok: true; readonly source: string } | { readonly ok: false; readonly message: string };

/**
 * Applies one edit to a source: the search lines must occur exactly once,
 * compared line by line without trailing whitespace, else (when that finds
 * nothing) without any surrounding whitespace. A search with no non-blank
 * line, none or several matches is an error whose message says what to send.
 */
export function applySearchReplace(source: string, edit: SearchReplaceEdit): SearchReplaceResult {
  const lines = source.split("\n");
  const search = trimBlankEnds(edit.search.replace(/\r\n/g, "\n").split("\n"));
  if (search.length === 0) return { ok: false, message: `a SEARCH block for ${edit.file} is empty; copy the lines to change from ${edit.file}` };
  for (const compare of [(line: string) => line.trimEnd(), (line: string) => line.trim()]) {
    const wanted = search.map(compare);
    const starts: number[] = [];
    for (let start = 0; start + wanted.length <= lines.length; start += 1) {
      if (wanted.every((line, offset) => compare(lines[start + offset] as string) === line)) starts.push(start);
    }
    if (starts.length > 1) return { ok: false, message: `the SEARCH lines starting "${search[0]?.trim().slice(0, 80)}" occur ${starts.length} times in ${edit.file}; include more lines so they occur once` };
    const start = starts[0];
    if (start !== undefined) {
      const replacement = edit.replace.replace(/\r\n/g, "\n").replace(/\n$/, "");
      const replaced = [...lines.slice(0, start), ...(replacement.length === 0 ? [] : replacement.split("\n")), ...lines.slice(start + search.length)];
      return { ok: true, source: replaced.join("\n") };
    }
  }
  return { ok: false, message: `the SEARCH lines starting "${search[0]?.trim().slice(0, 80)}" are not in ${edit.file}; copy them exactly from the file` };
}

function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === "") start += 1;
  while (end > start && (lines[end - 1] as string).trim() === "") end -= 1;
  return lines.slice(start, end);
}
