import { describe, expect, it } from "vitest";
import { pass, reject, type DesignRecord, type Episode, type EpisodeRecord, type Verdict } from "../../spec/index.js";
import { buildRoundReport, type RoundReportExtras } from "./round-report.js";

const extras: RoundReportExtras = { trainer: { name: "noop", policyVersion: 3, datums: 12 }, diagnostics: { step: 2 }, seconds: 41.5 };

function design(index: number, fields: { verdicts: readonly Verdict[]; completion?: string; environmentId?: string | null; reward?: number }): DesignRecord {
  return {
    round: 2,
    index,
    promptHash: `prompt-${index}`,
    corpusDocumentIds: [],
    completion: fields.completion ?? "```python\n...\n```",
    verdicts: fields.verdicts,
    environmentId: fields.environmentId ?? null,
    reward: fields.reward ?? 0,
  };
}

function admitted(index: number, reward: number): DesignRecord {
  return design(index, { verdicts: [pass("parse"), pass("static"), pass("oracle")], environmentId: `env-${index}`, reward });
}

function episode(hint: boolean, won: boolean, failure?: Episode["failure"]): EpisodeRecord {
  return {
    round: 2,
    environmentId: "env-a",
    role: "solver",
    hint,
    policyVersion: 3,
    episode: {
      seed: 1,
      initialObservation: "start",
      turns: [],
      return: won ? 1 : 0,
      won,
      terminated: true,
      truncated: false,
      ...(failure === undefined ? {} : { failure }),
    },
  };
}

describe("buildRoundReport", () => {
  it("reports an empty round with null rates", () => {
    expect(buildRoundReport(2, [], [], extras)).toEqual({
      round: 2,
      proposed: 0,
      admitted: 0,
      rejected: {},
      solver: { episodes: 0, winRateNoHint: null, winRateHint: null, invalidActionRate: null, signal: { groups: 0, returnVariance: 0, penaltyOnly: 0, constant: 0, fraction: null } },
      levels: [],
      designer: { meanReward: null, meanAttempts: null, admittedOnTurn: {}, admittedNames: [] },
      trainer: { name: "noop", policyVersion: 3, datums: 12 },
      diagnostics: { step: 2 },
      errors: {},
      seconds: 41.5,
    });
  });

  it("reports attempts per design, the turn that admitted each design and the admitted names", () => {
    const repaired = { ...admitted(1, 0.5), repairs: [{ completion: "first try", verdicts: [reject("executable", "reset_failed", "boom")] }] };
    const report = buildRoundReport(2, [admitted(0, 0.4), repaired], [], { ...extras, admittedNames: ["a", "b"] });
    expect(report.designer).toMatchObject({ meanAttempts: 1.5, admittedOnTurn: { "0": 1, "1": 1 }, admittedNames: ["a", "b"] });
  });

  it("counts proposed and admitted designs", () => {
    const designs = [admitted(0, 0.4), design(1, { verdicts: [reject("parse", "unparseable", "no block")] }), admitted(2, 0.6)];
    expect(buildRoundReport(2, designs, [], extras)).toMatchObject({ proposed: 3, admitted: 2 });
  });

  it("counts rejected designs by the reason of their last verdict", () => {
    const designs = [
      design(0, { verdicts: [reject("parse", "unparseable", "no block")] }),
      design(1, { verdicts: [pass("parse"), reject("static", "syntax_error", "imports os")] }),
      design(2, { verdicts: [pass("parse"), pass("static"), reject("oracle", "oracle_failed", "return 0 on seed 3")] }),
      design(3, { verdicts: [pass("parse"), reject("static", "syntax_error", "imports socket")] }),
      admitted(4, 0.5),
    ];
    expect(buildRoundReport(2, designs, [], extras).rejected).toEqual({ unparseable: 1, syntax_error: 2, oracle_failed: 1 });
  });

  it("counts neither an admitted design nor one whose last verdict passed as rejected", () => {
    const designs = [
      design(0, { verdicts: [reject("novelty", "text_near_duplicate", "seen before")], environmentId: "env-0" }),
      design(1, { verdicts: [reject("parse", "unparseable", "no block"), pass("parse")] }),
      design(2, { verdicts: [] }),
    ];
    const report = buildRoundReport(2, designs, [], extras);
    expect(report.rejected).toEqual({});
    expect(report.proposed).toBe(3);
    expect(report.admitted).toBe(1);
  });

  it("counts model errors both as rejections and as errors keyed by message", () => {
    const designs = [
      design(0, { verdicts: [reject("model", "model_error", "server down")], completion: "" }),
      design(1, { verdicts: [reject("model", "model_error", "server down")], completion: "" }),
      design(2, { verdicts: [reject("model", "model_error", "request timed out")], completion: "" }),
      design(3, { verdicts: [reject("parse", "unparseable", "no block")] }),
    ];
    const report = buildRoundReport(2, designs, [], extras);
    expect(report.rejected).toEqual({ model_error: 3, unparseable: 1 });
    expect(report.errors).toEqual({ "server down": 2, "request timed out": 1 });
  });

  it("cuts error messages longer than 400 characters to 397 characters and an ellipsis", () => {
    const long = `model unreachable: ${"x".repeat(600)}`;
    const designs = [design(0, { verdicts: [reject("model", "model_error", long)], completion: "" })];
    const key = `${long.slice(0, 397)}...`;
    expect(buildRoundReport(2, designs, [], extras).errors).toEqual({ [key]: 1 });
    expect(key).toHaveLength(400);
  });

  it("keeps a message of exactly 400 characters whole", () => {
    const exact = "e".repeat(400);
    const designs = [design(0, { verdicts: [reject("model", "model_error", exact)], completion: "" })];
    expect(buildRoundReport(2, designs, [], extras).errors).toEqual({ [exact]: 1 });
  });

  it("counts episode failures as errors by kind and message", () => {
    const episodes = [
      episode(false, false, { kind: "timeout", message: "step took over 1500 ms" }),
      episode(true, false, { kind: "timeout", message: "step took over 1500 ms" }),
      episode(false, false, { kind: "crash", message: "ZeroDivisionError" }),
      episode(false, true),
    ];
    expect(buildRoundReport(2, [], episodes, extras).errors).toEqual({
      "episode timeout: step took over 1500 ms": 2,
      "episode crash: ZeroDivisionError": 1,
    });
  });

  it("computes win rates per hint condition over every episode", () => {
    const episodes = [episode(false, true), episode(false, false), episode(false, false), episode(true, true), episode(true, true), episode(true, false, { kind: "crash", message: "boom" })];
    expect(buildRoundReport(2, [], episodes, extras).solver).toMatchObject({ episodes: 6, winRateNoHint: 1 / 3, winRateHint: 2 / 3, invalidActionRate: null });
  });

  it("gives a null win rate for a hint condition without episodes", () => {
    expect(buildRoundReport(2, [], [episode(true, true), episode(true, false)], extras).solver).toMatchObject({ episodes: 2, winRateNoHint: null, winRateHint: 0.5, invalidActionRate: null });
    expect(buildRoundReport(2, [], [episode(false, false)], extras).solver).toMatchObject({ episodes: 1, winRateNoHint: 0, winRateHint: null, invalidActionRate: null });
  });

  it("counts the Solver groups whose returns differ, those that differ only by a penalty, and the constant ones", () => {
    const invalid = (won: boolean): EpisodeRecord => {
      const base = episode(true, won);
      return { ...base, environmentId: "env-b", episode: { ...base.episode, turns: [{ action: "?", observation: "o", reward: 0, invalidAction: true }] } };
    };
    const episodes = [
      // env-a without the hint: 1 win, 2 losses -> a return signal
      episode(false, true),
      episode(false, false),
      episode(false, false),
      // env-a with the hint: all lost, none invalid -> constant
      episode(true, false),
      episode(true, false),
      // env-b with the hint: all lost, one with an invalid action -> the penalty only
      invalid(false),
      { ...episode(true, false), environmentId: "env-b" },
      // env-c: one episode, not a group
      { ...episode(false, true), environmentId: "env-c" },
    ];
    expect(buildRoundReport(2, [], episodes, extras).solver.signal).toEqual({ groups: 3, returnVariance: 1, penaltyOnly: 1, constant: 1, fraction: 1 / 3 });
  });

  it("reports the fraction of all the round's turns that the environments refused", () => {
    const played = (marks: readonly boolean[]): EpisodeRecord => {
      const base = episode(false, false);
      const turns = marks.map((invalid) => ({ action: "a", observation: "o", reward: 0, ...(invalid ? { invalidAction: true as const } : {}) }));
      return { ...base, episode: { ...base.episode, turns } };
    };
    expect(buildRoundReport(2, [], [played([true, false, true]), played([false]), played([])], extras).solver.invalidActionRate).toBe(0.5);
    expect(buildRoundReport(2, [], [played([false, false])], extras).solver.invalidActionRate).toBe(0);
  });

  it("averages the designer reward over designs with a non-empty completion only", () => {
    const designs = [
      admitted(0, 0.8),
      design(1, { verdicts: [reject("parse", "unparseable", "no block")], completion: "a poem", reward: 0.1 }),
      design(2, { verdicts: [reject("model", "model_error", "server down")], completion: "", reward: 0 }),
      design(3, { verdicts: [reject("model", "model_error", "server down")], completion: "", reward: 0.9 }),
    ];
    expect(buildRoundReport(2, designs, [], extras).designer.meanReward).toBeCloseTo(0.45);
  });

  it("gives a null mean reward when the model answered no design", () => {
    const designs = [design(0, { verdicts: [reject("model", "model_error", "server down")], completion: "" })];
    expect(buildRoundReport(2, designs, [], extras).designer.meanReward).toBeNull();
  });

  it("passes round, trainer, diagnostics and seconds through", () => {
    const report = buildRoundReport(7, [admitted(0, 1)], [], { trainer: { name: "tinker", policyVersion: 9, datums: 0 }, diagnostics: { step: 7 }, seconds: 0.25 });
    expect(report).toMatchObject({ round: 7, trainer: { name: "tinker", policyVersion: 9, datums: 0 }, diagnostics: { step: 7 }, seconds: 0.25, designer: { meanReward: 1 } });
  });
});
