import type { RunDetail } from "./api.js";
import type { Series } from "./charts.js";

/** A chart's data: its name, title, x label, xs and lines, and what to say when it has no value. */
export interface ChartSpec {
  readonly name: string;
  readonly title: string;
  readonly xLabel: string;
  readonly xs: readonly number[];
  readonly series: readonly Series[];
  readonly emptyNote: string;
  /** Fixed y axis, for rates. */
  readonly yRange?: readonly [number, number];
}

type Path = readonly string[];

const read = (value: unknown, path: Path): number | null => {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return null;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === "number" && Number.isFinite(current) ? current : null;
};

/**
 * The run page's charts from what the store and `metrics.jsonl` hold: per round (the round
 * reports: win rates, invalid actions, the Solver groups' learning signal, each levelled
 * environment's level window, Designer reward and regret, funnel, datums, probe,
 * engine–trainer KL, seconds per phase) and per optimiser step (`trainer_step` lines: loss,
 * clip fraction, sampler–learner KL, tokens/s).
 */
export function runCharts(detail: RunDetail): ChartSpec[] {
  const reported = detail.rounds.filter((round) => round.report !== null);
  const xs = reported.map((round) => round.round);
  const perRound = (label: string, ...path: string[]): Series => ({ label, values: reported.map((round) => read(round.report, path)) });
  const steps = detail.metrics.trainerSteps;
  const stepXs = steps.map((step, index) => read(step, ["policyVersion"]) ?? index + 1);
  const perStep = (label: string, ...path: string[]): Series => ({ label, values: steps.map((step) => read(step, path)) });
  const noRounds = "no finished round yet";
  // a run whose trainer trains has simply not stepped yet; only the noop trainer never does
  const noop = detail.summary.trainer === "noop";
  const noSteps = noop ? "no trainer step in metrics.jsonl (the noop trainer takes none)" : "no trainer step in metrics.jsonl yet";
  const byRound = (name: string, title: string, series: Series[], emptyNote = noRounds): ChartSpec => ({ name, title, xLabel: "round", xs, series, emptyNote });
  const byStep = (name: string, title: string, series: Series[]): ChartSpec => ({ name, title, xLabel: "policy version", xs: stepXs, series, emptyNote: noSteps });
  return [
    { ...byRound("win-rate", "Solver win rate", [perRound("without hint", "solver", "winRateNoHint"), perRound("with hint", "solver", "winRateHint")]), yRange: [0, 1] },
    { ...byRound("invalid-actions", "Invalid-action rate", [perRound("invalid actions", "solver", "invalidActionRate")]), yRange: [0, 1] },
    {
      ...byRound("learning-signal", "Solver groups with a learning signal (returns differ)", [perRound("fraction of groups", "solver", "signal", "fraction")], "no Solver group of two or more episodes yet"),
      yRange: [0, 1],
    },
    byRound("levels", "Level window top per environment (level controller)", levelSeries(reported), "no levelled environment played yet"),
    byRound("designer-reward", "Designer reward", [perRound("mean reward", "designer", "meanReward"), perRound("reward std", "diagnostics", "designer", "rewardStd")]),
    byRound(
      "regret",
      "Hint regret of admitted designs",
      [
        perRound("min", "diagnostics", "designer", "regret", "min"),
        perRound("median", "diagnostics", "designer", "regret", "median"),
        perRound("max", "diagnostics", "designer", "regret", "max"),
      ],
      "no admitted design yet, so no regret",
    ),
    byRound("funnel", "Admission funnel (designs per stage)", [
      perRound("designs", "diagnostics", "designer", "admissionFunnel", "designs"),
      perRound("unparseable", "diagnostics", "designer", "admissionFunnel", "unparseable"),
      perRound("mechanical reject", "diagnostics", "designer", "admissionFunnel", "mechanicalReject"),
      perRound("review reject", "diagnostics", "designer", "admissionFunnel", "reviewReject"),
      perRound("admitted", "diagnostics", "designer", "admissionFunnel", "admitted"),
    ]),
    byRound("datums", "Datums per step", [perRound("all", "trainer", "datums"), perRound("solver", "diagnostics", "solver", "datums"), perRound("designer", "diagnostics", "designer", "datums")]),
    byRound("probe", "Probe logprob (per token)", [perRound("mean logprob", "trainer", "probe", "meanLogprob"), perRound("change since start", "trainer", "probe", "deltaFromStart")], noop ? "no probe (the noop trainer measures none)" : "no probe yet (it is measured after each training step)"),
    byRound("engine-kl", "Engine–trainer KL (nats/token)", [perRound("KL estimate", "trainer", "samplerMismatch", "klEstimate"), perRound("truncated fraction", "trainer", "samplerMismatch", "truncatedFraction")], noop ? "not sampled on an inference engine with a trained adapter" : "no training step yet, or not sampled on an inference engine"),
    byRound("phase-seconds", "Seconds per phase", [perRound("solver", "phaseSeconds", "solver"), perRound("designer", "phaseSeconds", "designer"), perRound("training", "phaseSeconds", "training"), perRound("round", "seconds")]),
    byStep("loss", "Loss (sum)", [perStep("loss", "loss")]),
    byStep("clip-fraction", "Clip fraction", [perStep("clip fraction", "clipFraction")]),
    byStep("sampler-learner-kl", "Sampler–learner KL", [perStep("KL", "klSamplerLearner")]),
    byStep("tokens-per-second", "Training tokens/s", [perStep("tokens/s", "tokensPerSecond")]),
  ];
}

/** One line per levelled environment: the top of its level window in each round it was played (null in the others). */
function levelSeries(reported: RunDetail["rounds"]): Series[] {
  const names = [...new Set(reported.flatMap((round) => levelsOf(round.report).map((level) => level.name)))].sort();
  return names.map((name) => ({
    label: name,
    values: reported.map((round) => levelsOf(round.report).find((level) => level.name === name)?.window[1] ?? null),
  }));
}

function levelsOf(report: unknown): ReadonlyArray<{ readonly name: string; readonly window: readonly [number, number] }> {
  const levels = typeof report === "object" && report !== null ? (report as { levels?: unknown }).levels : undefined;
  return Array.isArray(levels) ? (levels as Array<{ name: string; window: [number, number] }>).filter((level) => typeof level?.name === "string" && Array.isArray(level.window)) : [];
}
