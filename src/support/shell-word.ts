/**
 * `text` as one POSIX shell word, for commands the CLI prints for the user to paste: as it is when
 * it holds only characters no shell splits or expands, else single-quoted (a `'` inside becomes `'\''`).
 */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
