/**
 * Control characters that a terminal would act on: C0 (but newline and tab),
 * DEL, C1 (`\x9b` is a one-byte CSI), and the bidirectional overrides and
 * isolates that reorder what is shown.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Untrusted text (an environment's exception message, observation or name)
 * made safe to print on a terminal: every control character that could start
 * an ANSI/OSC escape sequence (title change, screen clear, hyperlinks, colour),
 * move the cursor or reorder the line is shown as a visible escape (`\x1b`,
 * `\u202e`) instead; newlines and tabs are kept. Plain text is returned as it is.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (character) => {
    const code = character.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Characters JSON.stringify leaves raw that a terminal may still act on (DEL, C1, bidi controls, line separators). */
const JSON_RAW_CONTROL = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/gu;

/**
 * `JSON.stringify(value)` safe to print on a terminal: JSON escapes C0
 * controls itself; the rest of {@link escapeControlCharacters}' set is
 * written as `\uXXXX` escapes, so the text stays valid JSON with the same value.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_RAW_CONTROL, (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}
