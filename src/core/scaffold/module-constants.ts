/** A Python literal value read by {@link readModuleConstants}. */
export type PythonLiteral = string | number | boolean | readonly PythonLiteral[];

/**
 * The module-level constants of a Python source whose values are plain
 * literals: strings (single, double or triple quoted, with `\n`-style escapes,
 * adjacent strings in parentheses concatenated), integers, floats, booleans,
 * and lists or tuples of those. Only lines that start at column 0 with
 * `NAME =` (upper-case names) are read, each from its first assignment, and only
 * when the literal is the whole right-hand side; anything else (expressions, calls,
 * f-strings, lists nested deeper than 8) is skipped, never evaluated. Pure and linear in the source length;
 * never throws (the source is untrusted model output).
 *
 * @param source Python source text
 * @returns constant name → value, first assignment wins
 */
export function readModuleConstants(source: string): Record<string, PythonLiteral> {
  const constants: Record<string, PythonLiteral> = {};
  const seen = new Set<string>();
  const assignment = /^([A-Z][A-Z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*/gm;
  for (const match of source.matchAll(assignment)) {
    const name = match[1] as string;
    // a line starts after "\n" only: the m flag's ^ also matches after \r, U+2028 and U+2029, which Python does not end a line on inside a string
    const index = match.index ?? 0;
    if (index > 0 && source[index - 1] !== "\n") continue;
    if (seen.has(name)) continue;
    seen.add(name);
    const reader = new LiteralReader(source, (match.index ?? 0) + match[0].length);
    const parsed = reader.value();
    if (parsed !== undefined && reader.atLineEnd()) constants[name] = parsed;
  }
  return constants;
}

/** Deepest nesting of lists and tuples read; deeper values are skipped (bounded recursion on hostile input). */
const MAX_DEPTH = 8;

class LiteralReader {
  private depth = 0;

  constructor(
    private readonly text: string,
    private position: number,
  ) {}

  value(): PythonLiteral | undefined {
    this.skipSpace(false);
    const start = this.text[this.position];
    if (start === "[" || start === "(") {
      if (this.depth >= MAX_DEPTH) return undefined;
      this.depth += 1;
      try {
        return this.sequence(start === "[" ? "]" : ")");
      } finally {
        this.depth -= 1;
      }
    }
    if (start === '"' || start === "'") return this.strings();
    const word = /^(?:True|False|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])/.exec(this.text.slice(this.position, this.position + 40));
    if (word === null) return undefined;
    this.position += word[0].length;
    if (word[0] === "True") return true;
    if (word[0] === "False") return false;
    return Number(word[0]);
  }

  /** A list or tuple (or a parenthesised string concatenation). */
  private sequence(close: "]" | ")"): PythonLiteral | undefined {
    this.position += 1;
    const items: PythonLiteral[] = [];
    let commas = 0;
    for (;;) {
      this.skipSpace(true);
      if (this.text[this.position] === close) {
        this.position += 1;
        // ("a" "b") is a string, ("a",) and [..] are sequences
        if (close === ")" && commas === 0 && items.length === 1 && typeof items[0] === "string") return items[0];
        return items;
      }
      const item = this.value();
      if (item === undefined) return undefined;
      items.push(item);
      this.skipSpace(true);
      if (this.text[this.position] === ",") {
        commas += 1;
        this.position += 1;
      } else if (this.text[this.position] !== close) {
        return undefined;
      }
    }
  }

  /** One string literal, or adjacent ones concatenated. */
  private strings(): string | undefined {
    let result = "";
    do {
      const one = this.string();
      if (one === undefined) return undefined;
      result += one;
      // inside brackets, adjacent strings may continue on the next line
      this.skipSpace(this.depth > 0);
    } while (this.text[this.position] === '"' || this.text[this.position] === "'");
    return result;
  }

  private string(): string | undefined {
    const quote = this.text[this.position] as string;
    const triple = this.text.startsWith(quote.repeat(3), this.position);
    const end = triple ? quote.repeat(3) : quote;
    this.position += end.length;
    let result = "";
    while (this.position < this.text.length) {
      const character = this.text[this.position] as string;
      if (this.text.startsWith(end, this.position)) {
        this.position += end.length;
        return result;
      }
      if (character === "\n" && !triple) return undefined;
      if (character === "\\") {
        const next = this.text[this.position + 1] ?? "";
        result += ESCAPES[next] ?? (next === "\n" ? "" : `\\${next}`);
        this.position += 2;
        continue;
      }
      result += character;
      this.position += 1;
    }
    return undefined;
  }

  /** Whether only spaces and a comment remain on the current line. */
  atLineEnd(): boolean {
    this.skipSpace(false);
    const character = this.text[this.position];
    return character === undefined || character === "\n" || character === "\r" || character === "#";
  }

  private skipSpace(newlines: boolean): void {
    for (;;) {
      const character = this.text[this.position];
      if (character === " " || character === "\t" || (newlines && (character === "\n" || character === "\r"))) this.position += 1;
      else if (newlines && character === "#") while (this.position < this.text.length && this.text[this.position] !== "\n") this.position += 1;
      else return;
    }
  }
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };
