import { describe, expect, it } from "vitest";
import { extractAnswer } from "./answer-extraction.js";

// HAND-WRITTEN replies (not model output), for the extraction rules only; recorded real model
// answers are in fixtures/eval/ and tested in reasoning-gym-suite.test.ts.
describe("extractAnswer (SPADE: last <answer>, else last \\boxed{})", () => {
  it.each([
    ["<answer>1</answer> then <answer> 42 </answer>", "42"],
    ["<ANSWER>x</ANSWER>", "x"],
    ["<answer></answer>", ""],
    ["multi\n<answer>a\nb</answer>", "a\nb"],
    ["\\boxed{3} and \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"],
    ["<answer>7</answer> but \\boxed{8}", "7"],
    ["\\boxed{5} then a cut-off \\boxed{\\frac{1}{", "5"],
    ["no answer at all", null],
    ["<answer>unclosed", null],
  ])("%j gives %j", (reply, expected) => {
    expect(extractAnswer(reply)).toBe(expected);
  });
});
