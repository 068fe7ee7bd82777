import { describe, expect, it } from "vitest";
import { reject } from "../../spec/index.js";
import { scoreEvaluation } from "./evaluation.js";

describe("scoreEvaluation", () => {
  it("counts detections by labelled gate and reason, misses, false rejections and skipped fixtures", () => {
    const report = scoreEvaluation(
      [
        { fixture: "a", label: { gate: "oracle", reason: "oracle_failed" }, rejectedBy: reject("oracle", "oracle_failed", "m") },
        { fixture: "b", label: { gate: "oracle", reason: "oracle_failed" }, rejectedBy: reject("oracle", "oracle_error", "m") },
        { fixture: "c", label: { gate: "hint", reason: "hint_length" }, rejectedBy: null },
        { fixture: "d", label: { gate: "self-review", reason: "review_rejected" }, rejectedBy: null },
        { fixture: "seed:x", label: { gate: null, reason: null }, rejectedBy: reject("novelty", "behaviour_copy", "too close") },
        { fixture: "seed:y", label: { gate: null, reason: null }, rejectedBy: null },
      ],
      ["oracle", "hint"],
    );
    expect(report).toEqual({
      fixtures: 3,
      detected: 1,
      missed: [
        { fixture: "b", expected: "oracle/oracle_failed", got: "oracle/oracle_error" },
        { fixture: "c", expected: "hint/hint_length", got: "admitted" },
      ],
      falseRejections: [{ fixture: "seed:x", gate: "novelty", reason: "behaviour_copy", message: "too close" }],
      perGate: { oracle: { expected: 2, detected: 1 }, hint: { expected: 1, detected: 0 } },
      skipped: ["d"],
    });
  });
});
