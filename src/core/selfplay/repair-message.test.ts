import { describe, expect, it } from "vitest";
import { reject } from "../../spec/index.js";
import { REPAIR_ADVICE, REPAIR_DETAIL_LINES, REPAIR_EVIDENCE_CHARS, repairMessage } from "./repair-message.js";

describe("repairMessage", () => {
  it("names the first failing gate, reason and message, with the traceback's last lines", () => {
    const traceback = Array.from({ length: 20 }, (_, line) => `  line ${line}`).join("\n");
    const message = repairMessage(
      [{ status: "pass", gate: "parse" }, reject("executable", "reset_failed", "reset(0) failed: NameError: name 'random' is not defined", { seed: 0, detail: traceback }), reject("oracle", "oracle_failed", "never shown")],
      "scaffold",
    );
    expect(message).toContain("rejected by the executable check (reset_failed): reset(0) failed: NameError: name 'random' is not defined");
    expect(message).toContain('{"seed":0}');
    expect(message).toContain("line 19");
    expect(message).not.toContain("line 11\n");
    expect(message.split("\n").filter((line) => line.startsWith("  line"))).toHaveLength(REPAIR_DETAIL_LINES);
    expect(message).not.toContain("never shown");
    expect(message).toMatch(/whole corrected python block only/);
  });

  it("bounds the evidence and asks for the three blocks in the class format", () => {
    const message = repairMessage([reject("novelty", "text_near_duplicate", "similar", { huge: "x".repeat(10_000) })], "class");
    expect(message.length).toBeLessThan(REPAIR_EVIDENCE_CHARS + 400);
    expect(message).toMatch(/all three corrected blocks/);
  });

  it("for a truncated attempt, is a note for asking the prompt again", () => {
    const message = repairMessage([{ status: "pass", gate: "parse" }, reject("static", "syntax_error", "line 58: unterminated string literal")], "scaffold", { truncated: true });
    expect(message.split("\n")).toEqual([
      "An earlier reply to this was cut off at the token limit and was rejected by the static check (syntax_error): line 58: unterminated string literal",
      "Check the line named in the message: unbalanced brackets or quotes, or a statement cut off.",
      "Write a shorter program, under 40 lines, with no repeated lines.",
    ]);
  });

  it("in the restart mode, is a note that names the error and asks for the task again", () => {
    const message = repairMessage([reject("executable", "reset_failed", "reset(0) failed: NameError: name 'n2' is not defined", { seed: 0 })], "scaffold", { mode: "restart" });
    expect(message).toMatch(/^An earlier reply to this was rejected by the executable check \(reset_failed\): reset\(0\) failed: NameError/);
    expect(message.split("\n").at(-1)).toBe("Write the task again and avoid that error.");
  });

  it("adds advice for the reasons small models meet most, in the scaffolded format only", () => {
    const verdicts = [reject("deterministic", "seeds_identical", "only 1 of 8 seeds give distinct instances")];
    expect(repairMessage(verdicts, "scaffold")).toContain("generate(rng) must draw the instance's values from rng");
    expect(repairMessage(verdicts, "class")).not.toContain("generate(rng)");
  });

  it("after a calibration or self-review reject, says what to change about the task itself", () => {
    const tooHard = repairMessage([reject("calibration", "too_hard", "the Solver's pass rate 0.00 is not above 0", { plays: 16, wins: 0 })], "scaffold", { mode: "restart" });
    expect(tooHard.split("\n")).toEqual([
      "An earlier reply to this was rejected by the calibration check (too_hard): the Solver's pass rate 0.00 is not above 0",
      REPAIR_ADVICE.too_hard,
      '{"plays":16,"wins":0}',
      "Write the task again and avoid that error.",
    ]);
    expect(repairMessage([reject("calibration", "too_easy", "the Solver's pass rate 1.00 is not below 1")], "scaffold")).toContain("Make each instance harder");
    expect(repairMessage([reject("self-review", "review_rejected", "1 of 3 reviews rejected the environment")], "scaffold")).toContain("Fix what the reviews fault");
  });
});
