import { describe, expect, it } from "vitest";
import { applySearchReplace, closestLines, parseSearchReplace } from "./search-replace.js";

const source = ["ITEMS = 7", "MAX_WEIGHT = 12", "", "def make(rng):", "    return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]", ""].join("\n");

describe("search/replace edits", () => {
  it("parses blocks with and without a file name, fenced or not", () => {
    const reply = ["Here are the edits.", "```", "<<<<<<< SEARCH", "ITEMS = 7", "=======", "ITEMS = 12", ">>>>>>> REPLACE", "```", "<<<<<<< SEARCH oracle.py", "    return 'x'", "=======", ">>>>>>> REPLACE"].join("\n");
    expect(parseSearchReplace(reply).edits).toEqual([
      { file: "env.py", search: "ITEMS = 7\n", replace: "ITEMS = 12\n" },
      { file: "oracle.py", search: "    return 'x'\n", replace: "" },
    ]);
  });

  it("replaces lines found once, tolerating trailing and then surrounding whitespace", () => {
    expect(applySearchReplace(source, { file: "env.py", search: "ITEMS = 7   \n", replace: "ITEMS = 12\n" })).toEqual({ ok: true, source: source.replace("ITEMS = 7", "ITEMS = 12") });
    const indented = applySearchReplace(source, { file: "env.py", search: "return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]", replace: "    return sorted(rng.sample(range(1, 50), ITEMS))" });
    expect(indented).toEqual({ ok: true, source: source.replace("    return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]", "    return sorted(rng.sample(range(1, 50), ITEMS))") });
  });

  it("refuses a search that is absent, ambiguous or empty, saying what to send", () => {
    expect(applySearchReplace(source, { file: "env.py", search: "ITEMS = 8", replace: "x" })).toMatchObject({ ok: false, message: expect.stringMatching(/^the SEARCH lines starting "ITEMS = 8" are not in env\.py; copy them exactly from the file; the closest lines in env\.py are:\nITEMS = 7\n/) });
    expect(applySearchReplace("a = 1\na = 1\n", { file: "env.py", search: "a = 1", replace: "a = 2" })).toMatchObject({ ok: false, message: expect.stringContaining("occur 2 times") });
    expect(applySearchReplace(source, { file: "env.py", search: "\n  \n", replace: "x" })).toMatchObject({ ok: false, message: expect.stringContaining("is empty") });
  });

  it("drops the code fences a model wraps inside a SEARCH or REPLACE section", () => {
    const reply = ["<<<<<<< SEARCH env.py", "```python", "ITEMS = 7", "=======", "ITEMS = 12", "```", ">>>>>>> REPLACE"].join("\n");
    expect(parseSearchReplace(reply).edits).toEqual([{ file: "env.py", search: "ITEMS = 7\n", replace: "ITEMS = 12\n" }]);
  });

  it("shifts a replacement whose indentation agrees with its search but not with the file", () => {
    const applied = applySearchReplace(source, { file: "env.py", search: "return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]\n", replace: "items = [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]\nreturn sorted(items)\n" });
    expect(applied).toEqual({ ok: true, source: source.replace("    return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]", "    items = [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]\n    return sorted(items)") });
    const nested = "class Env:\n    def reset(self, seed):\n        self.n = 3\n        return 'go'\n";
    const outdented = applySearchReplace(nested, { file: "env.py", search: "            self.n = 3\n", replace: "            self.n = 5\n            self.m = 2\n" });
    expect(outdented).toEqual({ ok: true, source: nested.replace("        self.n = 3", "        self.n = 5\n        self.m = 2") });
  });

  it("shows the closest lines of the file when the search is absent", () => {
    const missing = applySearchReplace(source, { file: "env.py", search: "def make(rng, count):\n    return [rng.randint(1, MAX) for _ in range(count)]\n", replace: "x\n" });
    expect(missing.ok).toBe(false);
    expect(missing.ok ? "" : missing.message).toContain("the closest lines in env.py are:\nMAX_WEIGHT = 12\n\ndef make(rng):\n    return [rng.randint(1, MAX_WEIGHT) for _ in range(ITEMS)]\n");
    expect(applySearchReplace("a = 1\n", { file: "env.py", search: "zzz qqq", replace: "x" })).toEqual({ ok: false, message: 'the SEARCH lines starting "zzz qqq" are not in env.py; copy them exactly from the file' });
  });

  it("finds the closest lines of a file shorter than the search", () => {
    expect(closestLines(["a b"], ["a", "b", "c"])).toBe("a b");
  });

  it("stays linear on a hostile reply (many markers, no block closes)", () => {
    const started = performance.now();
    expect(parseSearchReplace("<<<<<<< SEARCH\n=======\n".repeat(50_000)).edits).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
