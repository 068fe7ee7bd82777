import type { RoundReport } from "../../spec/index.js";
import type { MetricsLog } from "../metrics-log.js";

/** One scalar for TensorBoard: a value of `tag` at `step`. */
export interface ScalarPoint {
  /** `group/key/…`, e.g. `solver/rewardMean`, `trainer/loss`; characters outside `[A-Za-z0-9_./-]` become `_`. */
  readonly tag: string;
  /** The x-axis: the round for round figures, the policy version (optimiser step) for `trainer/…`. */
  readonly step: number;
  readonly value: number;
  /** Seconds since the Unix epoch: the line's `time` when it has one, else the export's time. */
  readonly wallTime: number;
}

/** What {@link scalarSeries} left out, by why. */
export interface SkippedCounts {
  /** `metrics.jsonl` lines that were not JSON objects of a known kind (a half-written last line counts here). */
  readonly lines: number;
  /** Lines whose step (`round`, `policyVersion`) is not a non-negative integer. */
  readonly linesWithoutStep: number;
  /** Values that are null: a figure not measured that step (no advantage when every group was dropped). */
  readonly nullValues: number;
  /** Strings, booleans and arrays: labels (the trainer's name, a checkpoint path) or a value that should have been a number. */
  readonly nonNumericValues: number;
  /** ±Infinity (JSON's `1e999`) and the strings `"NaN"`, `"Infinity"`, `"-Infinity"`. */
  readonly nonFiniteValues: number;
}

/** The scalars of a run and what was skipped on the way. */
export interface ScalarSeries {
  /** Sorted by step, then in the order the run wrote them; one point per (tag, step). */
  readonly points: readonly ScalarPoint[];
  readonly skipped: SkippedCounts;
  /** Rounds with a `round` line in `metrics.jsonl`. */
  readonly roundsFromLog: number;
  /** Rounds without one (a missing or half-written line) whose figures came from the store's round report. */
  readonly roundsFromStore: number;
  /** Optimiser steps (`trainer_step` lines). */
  readonly trainerSteps: number;
}

/** Inputs of {@link scalarSeries}. */
export interface ScalarSeriesInput {
  /** The parsed `metrics.jsonl` ({@link readMetricsLog}). */
  readonly metrics: MetricsLog;
  /** Round reports from the run's store (none when it cannot be read). */
  readonly reports: readonly RoundReport[];
  /** Wall time of points whose line has no `time`. @default () => new Date() */
  readonly now?: () => Date;
}

/** Keys of a line that are not metrics: its kind, its x-axis and its timestamp. */
const LINE_KEYS = new Set(["kind", "round", "policyVersion", "time"]);

const cleanTag = (tag: string): string => tag.replace(/[^A-Za-z0-9_./-]/g, "_");

const isStep = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** The `time` of a line (ISO-8601 string, or seconds since the epoch) in seconds, or null. */
function wallTimeOf(line: Record<string, unknown>): number | null {
  const time = line.time;
  if (typeof time === "number" && Number.isFinite(time) && time > 0) return time;
  if (typeof time === "string") {
    const parsed = Date.parse(time);
    if (Number.isFinite(parsed)) return parsed / 1000;
  }
  return null;
}

/**
 * Turns a run's metrics into TensorBoard scalars, one tag per numeric leaf of the JSON, with the
 * metrics' own keys joined by `/`:
 *
 * - a `round` line (step = `round`): its `diagnostics.<role>.…` as `<role>/…` (`solver/rewardMean`,
 *   `designer/regret/median`, `designer/admissionFunnel/admitted`; `diagnostics.step` is the
 *   x-axis and left out), everything else under `round/` (`round/seconds`,
 *   `round/phaseSeconds/solver`, `round/trainer/policyVersion`, `round/trainer/probe/meanLogprob`);
 * - the store's report of that round adds `solver/winRateNoHint`, `solver/winRateHint`,
 *   `solver/invalidActionRate`, `solver/episodes`, `designer/meanReward`, `designer/meanAttempts`,
 *   `designer/admittedOnTurn/<turn>`, `admission/proposed`, `admission/admitted`,
 *   `admission/rejected/<reason>`, `errors/<code>`, the Solver groups' learning signal
 *   (`solver/signal/fraction`, `solver/signal/returnVariance`, …) and each levelled environment's
 *   level window (`levels/<name>/low`, `levels/<name>/high`); a round the log lacks takes its `round`
 *   line's figures from the report (they are the same values);
 * - a `trainer_step` line (step = `policyVersion`): `trainer/…` (`trainer/loss`,
 *   `trainer/clipFraction`, `trainer/klSamplerLearner`, `trainer/tokensPerSecond`,
 *   `trainer/seconds/forwardBackward`, …).
 *
 * Nulls, labels and non-finite values are skipped and counted, never written. A (tag, step) seen
 * twice keeps the later value. Pure: the same input gives the same points.
 */
export function scalarSeries(input: ScalarSeriesInput): ScalarSeries {
  const fallbackTime = (input.now ?? (() => new Date()))().getTime() / 1000;
  const points = new Map<string, ScalarPoint>();
  let nullValues = 0;
  let nonNumericValues = 0;
  let nonFiniteValues = 0;
  let linesWithoutStep = 0;

  const add = (tag: string, step: number, value: unknown, wallTime: number): void => {
    if (value === null || value === undefined) nullValues += 1;
    else if (typeof value === "number") {
      if (!Number.isFinite(value)) nonFiniteValues += 1;
      else {
        const point = { tag: cleanTag(tag), step, value, wallTime };
        const key = `${point.tag}\u0000${step}`;
        points.delete(key); // a repeated (tag, step) moves to the end with the later value
        points.set(key, point);
      }
    } else if (typeof value === "object" && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) add(`${tag}/${key}`, step, child, wallTime);
    } else if (value === "NaN" || value === "Infinity" || value === "-Infinity") nonFiniteValues += 1;
    else nonNumericValues += 1;
  };

  const addRoundLine = (round: number, line: Record<string, unknown>, wallTime: number): void => {
    for (const [key, value] of Object.entries(line)) {
      if (LINE_KEYS.has(key)) continue;
      if (key === "diagnostics" && typeof value === "object" && value !== null && !Array.isArray(value)) {
        for (const [role, figures] of Object.entries(value as Record<string, unknown>)) {
          if (role !== "step") add(role, round, figures, wallTime);
        }
      } else add(`round/${key}`, round, value, wallTime);
    }
  };

  const reports = new Map(input.reports.filter((report) => isStep(report.round)).map((report) => [report.round, report]));
  const logged = new Map<number, number>();
  for (const line of input.metrics.rounds) {
    const round = line.round;
    if (!isStep(round)) {
      linesWithoutStep += 1;
      continue;
    }
    const wallTime = wallTimeOf(line) ?? fallbackTime;
    logged.set(round, wallTime);
    addRoundLine(round, line, wallTime);
  }
  let roundsFromStore = 0;
  for (const [round, report] of [...reports].sort(([a], [b]) => a - b)) {
    const wallTime = logged.get(round) ?? fallbackTime;
    if (!logged.has(round)) {
      roundsFromStore += 1;
      // the same fields runSelfPlay writes to a round line
      addRoundLine(round, { trainer: report.trainer, seconds: report.seconds, phaseSeconds: report.phaseSeconds, diagnostics: report.diagnostics }, wallTime);
    }
    add("solver", round, report.solver, wallTime);
    add("designer", round, report.designer, wallTime);
    add("admission/proposed", round, report.proposed, wallTime);
    add("admission/admitted", round, report.admitted, wallTime);
    add("admission/rejected", round, report.rejected, wallTime);
    add("errors", round, report.errors, wallTime);
    // each levelled environment's window as the round sampled it (the level controller)
    for (const level of report.levels ?? []) add(`levels/${level.name}`, round, { low: level.window[0], high: level.window[1] }, wallTime);
  }
  let trainerSteps = 0;
  for (const line of input.metrics.trainerSteps) {
    const step = line.policyVersion;
    if (!isStep(step)) {
      linesWithoutStep += 1;
      continue;
    }
    trainerSteps += 1;
    const wallTime = wallTimeOf(line) ?? fallbackTime;
    for (const [key, value] of Object.entries(line)) if (!LINE_KEYS.has(key)) add(`trainer/${key}`, step, value, wallTime);
  }
  const sorted = [...points.values()].map((point, order) => ({ point, order })).sort((a, b) => a.point.step - b.point.step || a.order - b.order);
  return {
    points: sorted.map(({ point }) => point),
    skipped: { lines: input.metrics.skippedLines, linesWithoutStep, nullValues, nonNumericValues, nonFiniteValues },
    roundsFromLog: logged.size,
    roundsFromStore,
    trainerSteps,
  };
}
