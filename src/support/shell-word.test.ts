import { describe, expect, it } from "vitest";
import { shellWord } from "./shell-word.js";

describe("shellWord", () => {
  it("leaves safe words alone and single-quotes the rest", () => {
    expect(shellWord("runs/run-1")).toBe("runs/run-1");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("$HOME")).toBe("'$HOME'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
  });
});
