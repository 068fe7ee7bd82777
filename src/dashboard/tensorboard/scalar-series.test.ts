import { describe, expect, it } from "vitest";
import type { RoundReport } from "../../spec/index.js";
import { scalarSeries } from "./scalar-series.js";

const now = () => new Date("2026-01-01T00:00:00Z");
const log = (rounds: Record<string, unknown>[], trainerSteps: Record<string, unknown>[] = [], skippedLines = 0) => ({ rounds, trainerSteps, skippedLines });

describe("scalarSeries", () => {
  it("groups diagnostics by role, puts the rest of a round line under round/, and leaves out the x-axis keys", () => {
    const result = scalarSeries({
      metrics: log([{ kind: "round", round: 3, seconds: 12, phaseSeconds: { solver: 5 }, diagnostics: { step: 3, solver: { rewardMean: 0.5 }, designer: { regret: { median: 0.1 } } } }]),
      reports: [],
      now,
    });
    expect(result.points.map((point) => [point.tag, point.step, point.value])).toEqual([
      ["round/seconds", 3, 12],
      ["round/phaseSeconds/solver", 3, 5],
      ["solver/rewardMean", 3, 0.5],
      ["designer/regret/median", 3, 0.1],
    ]);
    expect(result.points.every((point) => point.wallTime === Date.parse("2026-01-01T00:00:00Z") / 1000)).toBe(true);
  });

  it("keeps the later value of a repeated (tag, step), sorts by step, and cleans tags TensorBoard would rewrite", () => {
    const result = scalarSeries({
      metrics: log([], [
        { kind: "trainer_step", policyVersion: 2, loss: 4 },
        { kind: "trainer_step", policyVersion: 1, loss: 9 },
        { kind: "trainer_step", policyVersion: 1, loss: 3, "odd key!": 1 },
      ]),
      reports: [],
      now,
    });
    expect(result.points.map((point) => [point.tag, point.step, point.value])).toEqual([
      ["trainer/loss", 1, 3],
      ["trainer/odd_key_", 1, 1],
      ["trainer/loss", 2, 4],
    ]);
    expect(result.trainerSteps).toBe(3);
  });

  it("reads a report's win rates, admission counts and errors, and a numeric time as epoch seconds", () => {
    const report = {
      round: 1,
      proposed: 2,
      admitted: 1,
      rejected: { oracle_failed: 1 },
      solver: { episodes: 4, winRateNoHint: 0.25, winRateHint: 0.75, invalidActionRate: null },
      designer: { meanReward: 0.3, admittedNames: ["maze"] },
      trainer: { name: "reference", policyVersion: 1, datums: 3 },
      diagnostics: {},
      errors: { model_error: 2 },
      seconds: 9,
    } satisfies RoundReport;
    const result = scalarSeries({ metrics: log([{ kind: "round", round: 1, time: 1_700_000_000, seconds: 9 }]), reports: [report], now });
    const byTag = Object.fromEntries(result.points.map((point) => [point.tag, point.value]));
    expect(byTag).toMatchObject({ "solver/winRateNoHint": 0.25, "solver/winRateHint": 0.75, "admission/proposed": 2, "admission/admitted": 1, "admission/rejected/oracle_failed": 1, "errors/model_error": 2, "designer/meanReward": 0.3 });
    expect(byTag["round/trainer/policyVersion"]).toBeUndefined(); // the log's line wins; the report's copy is not used
    expect(result.skipped).toMatchObject({ nullValues: 1, nonNumericValues: 1 });
    expect(new Set(result.points.map((point) => point.wallTime))).toEqual(new Set([1_700_000_000]));
  });

  it("writes the Solver groups' learning signal and each levelled environment's window per round", () => {
    const report = (round: number, window: [number, number]): RoundReport => ({
      round,
      proposed: 0,
      admitted: 0,
      rejected: {},
      solver: { episodes: 8, winRateNoHint: 0.5, winRateHint: 0.5, signal: { groups: 2, returnVariance: 1, penaltyOnly: 0, constant: 1, fraction: 0.5 } },
      levels: [{ environmentId: "env-a", name: "number-guess", count: 7, window, next: window, byLevel: {} }],
      designer: { meanReward: null },
      trainer: { name: "noop", policyVersion: 0, datums: 0 },
      diagnostics: {},
      errors: {},
      seconds: 1,
    });
    const result = scalarSeries({ metrics: log([]), reports: [report(1, [0, 0]), report(2, [0, 1])], now });
    const series = (tag: string) => result.points.filter((point) => point.tag === tag).map((point) => [point.step, point.value]);
    expect(series("levels/number-guess/high")).toEqual([[1, 0], [2, 1]]);
    expect(series("levels/number-guess/low")).toEqual([[1, 0], [2, 0]]);
    expect(series("solver/signal/fraction")).toEqual([[1, 0.5], [2, 0.5]]);
  });
});
