import { describe, expect, it } from "vitest";
import type { RoundReport } from "../spec/index.js";
import { formatLevelReport, formatSummary } from "./summary.js";

const details = { model: "embedded", out: "/tmp/run", reportPath: "/tmp/run/report.json", environments: 10 };
function report(round: number, samplerMismatch?: NonNullable<RoundReport["trainer"]["samplerMismatch"]>): RoundReport {
  return {
    round,
    proposed: 0,
    admitted: 0,
    rejected: {},
    solver: { episodes: 8, winRateNoHint: 0, winRateHint: 0 },
    designer: { meanReward: null },
    trainer: { name: "reference", policyVersion: round, datums: 6, ...(samplerMismatch ? { samplerMismatch } : {}) },
    diagnostics: {},
    errors: {},
    seconds: 1,
  };
}

describe("formatSummary", () => {
  it("gives the engine–trainer mismatch of the last step that trained Solver tokens, not a step of only Designer datums", () => {
    const text = formatSummary(
      [report(1, { tokens: 504, klEstimate: 0.1241, maxRatio: 31.6, truncatedFraction: 0.0198, meanWeight: 0.93 }), report(2, { tokens: 0, klEstimate: 0, maxRatio: 1, truncatedFraction: 0, meanWeight: 1 })],
      details,
    );
    expect(text).toContain("sampled on llama.cpp, engine–trainer KL 0.1241/token over 504 Solver tokens (step 1), 2.0 % truncated");
  });

  it("says when the engine sampled but no step trained Solver tokens", () => {
    expect(formatSummary([report(1, { tokens: 0, klEstimate: 0, maxRatio: 1, truncatedFraction: 0, meanWeight: 1 })], details)).toContain("sampled on llama.cpp (no step trained Solver tokens");
  });

  it("says nothing about the engine when the policy sampled on the trainer", () => {
    expect(formatSummary([report(1)], details)).not.toContain("llama.cpp");
  });

  it("shows a resumed round's own seconds, its earlier attempts' and the sum", () => {
    const text = formatSummary([{ ...report(1), seconds: 35.1, earlierSeconds: 209.5 }, report(2)], details);
    expect(text).toContain("; 35.1s resumed + 209.5s before the resume = 244.6s");
    expect(text).toMatch(/round 2: .*; 1s\n/);
  });
});

describe("formatLevelReport", () => {
  it("says that the per-level counts are the no-hint episodes", () => {
    const line = formatLevelReport({ environmentId: "env-1", name: "subset-sum", count: 8, window: [0, 0], next: [0, 1], byLevel: { "0": { episodes: 4, wins: 2 } } });
    expect(line).toBe("subset-sum levels [0] of 8 -> [0, 1] (raised); without hint, level 0: 2/4 won");
  });
});
