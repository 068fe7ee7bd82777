import { describe, expect, it } from "vitest";
import { escapeControlCharacters, terminalJson } from "./terminal-text.js";

describe("escapeControlCharacters", () => {
  it("shows ANSI CSI, OSC, C1 and bidi controls as visible escapes", () => {
    expect(escapeControlCharacters("\u001b]0;owned\u0007\u001b[2J\u001b[31mred\u009b0m")).toBe("\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mred\\x9b0m");
    expect(escapeControlCharacters("abc\u202edef\u0000\u007f")).toBe("abc\\u202edef\\x00\\x7f");
    expect(escapeControlCharacters("carriage\rreturn")).toBe("carriage\\x0dreturn");
  });

  it("keeps plain text, newlines, tabs and non-ASCII letters", () => {
    expect(escapeControlCharacters("line one\n\tline two: ünïcødé → 日本語 ✓")).toBe("line one\n\tline two: ünïcødé → 日本語 ✓");
  });

  it("writes JSON whose raw C1 and bidi characters are escaped, with the same value", () => {
    const value = { message: "\u001b[2J red\u009b0m \u202e" };
    const text = terminalJson(value);
    expect(text).toBe('{"message":"\\u001b[2J red\\u009b0m \\u202e"}');
    expect(JSON.parse(text)).toEqual(value);
  });
});
