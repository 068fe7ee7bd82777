import { describe, expect, it } from "vitest";
import { readModuleConstants } from "./module-constants.js";

describe("readModuleConstants", () => {
  it("reads strings in every quoting, lists, tuples, numbers and booleans", () => {
    const source = [
      'NAME = "digit-sum"',
      "TITLE = 'Sum of digits'",
      'DESCRIPTION = """Two\nlines with "quotes"."""',
      "HINT = ('Add the digits '",
      "        'one at a time.')",
      'SKILLS = ["arithmetic", \'counting\',]',
      "PAIR = (1, 2.5)",
      "MAX_TURNS = 3",
      "STRICT = True",
      'ESCAPED = "tab\\tquote\\" newline\\n"',
    ].join("\n");
    expect(readModuleConstants(source)).toEqual({
      NAME: "digit-sum",
      TITLE: "Sum of digits",
      DESCRIPTION: 'Two\nlines with "quotes".',
      HINT: "Add the digits one at a time.",
      SKILLS: ["arithmetic", "counting"],
      PAIR: [1, 2.5],
      MAX_TURNS: 3,
      STRICT: true,
      ESCAPED: 'tab\tquote" newline\n',
    });
  });

  it("skips what is not a plain literal and never evaluates it", () => {
    const source = [
      'NAME = f"task-{1 + 1}"',
      "TITLE = make_title()",
      'HINT = "unterminated',
      "SKILLS = [random.choice(['a'])]",
      "lower = 'not a constant'",
      "    INDENTED = 'inside a function'",
      "SIZE = 10 ** 3",
      'NAME = "second assignment is ignored"',
    ].join("\n");
    const constants = readModuleConstants(source);
    expect(constants).toEqual({});
  });

  it("keeps the first assignment and reads annotated constants", () => {
    expect(readModuleConstants('NAME: str = "a"\nNAME = "b"')).toEqual({ NAME: "a" });
  });

  it("stays linear on hostile input (a megabyte of open brackets and quotes)", () => {
    const started = performance.now();
    const constants = readModuleConstants(`A = ${"[".repeat(200_000)}\nB = ${'"'.repeat(3)}${"x".repeat(500_000)}`);
    expect(constants).toEqual({});
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("starts lines after a newline only, not after a carriage return or U+2028 inside a string", () => {
    expect(readModuleConstants('TITLE = "x\rHINT = 0"\nHINT = "real"\n').HINT).toBe("real");
    expect(readModuleConstants('TITLE = "x\u2028HINT = 0"\nHINT = "real"\n').HINT).toBe("real");
  });
});
