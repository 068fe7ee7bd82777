import { getJson, type DesignView, type RunDetail } from "../api.js";
import { lineChart } from "../charts.js";
import { el, fixed, link, percent, table } from "../dom.js";
import { runCharts } from "../run-series.js";

/** Counts of the verdicts that stopped designs (and repair attempts), by gate and reason. */
function funnelTable(designs: readonly DesignView[]): HTMLElement {
  const counts = new Map<string, { gate: string; reason: string; final: number; attempts: number }>();
  const add = (gate: string, reason: string, final: boolean) => {
    const key = `${gate}\u0000${reason}`;
    const entry = counts.get(key) ?? { gate, reason, final: 0, attempts: 0 };
    if (final) entry.final += 1;
    else entry.attempts += 1;
    counts.set(key, entry);
  };
  for (const design of designs) {
    if (design.stoppedBy === null) add("(admitted)", "admitted", true);
    else add(design.stoppedBy.gate, design.stoppedBy.status === "reject" ? design.stoppedBy.reason : "stopped", true);
    for (const attempt of design.repairs) {
      const stop = attempt.verdicts.find((verdict) => verdict.status === "reject");
      if (stop !== undefined && stop.status === "reject") add(stop.gate, stop.reason, false);
    }
  }
  if (counts.size === 0) return el("p", { class: "empty" }, "no design yet");
  return table(
    ["gate", "reason", "designs stopped", "repair attempts sent back"],
    [...counts.values()].map((entry) => [entry.gate, entry.reason, String(entry.final), String(entry.attempts)]),
    { id: "funnel-table" },
  );
}

/** A run: summary, charts over steps, the admission funnel by gate and reason, the rounds table and the environments in memory. */
export async function runPage(runId: string): Promise<HTMLElement> {
  const base = `/api/runs/${encodeURIComponent(runId)}`;
  const [detail, { designs }] = await Promise.all([getJson<RunDetail>(base), getJson<{ designs: DesignView[] }>(`${base}/designs`)]);
  const { summary } = detail;
  const route = `/runs/${encodeURIComponent(runId)}`;
  const rounds = table(
    ["round", "status", "designs", "admitted", "rejected", "solver episodes", "win rate (no hint)", "win rate (hint)", "invalid actions", "designer reward", "datums", "seconds"],
    detail.rounds.map((round) => {
      const report = round.report;
      return [
        String(round.round),
        round.status,
        report === null ? "–" : String(report.proposed),
        report === null ? "–" : String(report.admitted),
        report === null ? "–" : Object.entries(report.rejected).map(([reason, count]) => `${reason} ${count}`).join(", ") || "–",
        report === null ? "–" : String(report.solver.episodes),
        percent(report?.solver.winRateNoHint),
        percent(report?.solver.winRateHint),
        percent(report?.solver.invalidActionRate),
        fixed(report?.designer.meanReward),
        report === null ? "–" : String(report.trainer.datums),
        report === null ? "–" : String(report.seconds),
      ];
    }),
    { id: "rounds-table" },
  );
  const environments = table(
    ["environment", "origin", "generation", "round", "episodes", "win rate (no hint)", "win rate (hint)", "regret", "designer reward"],
    detail.environments.map((environment) => [
      link(`${route}/environments/${encodeURIComponent(environment.id)}`, environment.name),
      environment.origin,
      String(environment.generation),
      environment.round === null ? "seed" : String(environment.round),
      String(environment.episodes),
      percent(environment.scores?.winRateNoHint),
      percent(environment.scores?.winRateHint),
      fixed(environment.scores?.regret, 3),
      fixed(environment.scores?.designerReward),
    ]),
    { id: "environments-table" },
  );
  return el(
    "div",
    { class: "page page-run" },
    el("h1", {}, `Run ${summary.id}`),
    el(
      "p",
      { class: "summary" },
      `${summary.status} · model ${summary.model ?? "?"} · trainer ${summary.trainer ?? "?"} · ${summary.roundsDone}${summary.roundsPlanned === null ? "" : `/${summary.roundsPlanned}`} rounds · ${summary.admitted} admitted of ${summary.designs} designs · ${summary.environments} environments · ${summary.path}`,
    ),
    ...summary.notices.map((notice) => el("p", { class: "notice" }, notice)),
    detail.metrics.skippedLines > 0 ? el("p", { class: "notice" }, `metrics.jsonl: ${detail.metrics.skippedLines} line(s) not read (partial or not JSON)`) : null,
    el("nav", { class: "tabs" }, link(`${route}/designs`, `Designs (${summary.designs})`), " ", link(`${route}/lineages`, `Lineages (${summary.lineages})`)),
    el("div", { class: "charts" }, ...runCharts(detail).map((chart) => lineChart(chart.name, chart.title, chart.xLabel, chart.xs, chart.series, chart.emptyNote, chart.yRange))),
    el("h2", {}, "Admission by gate and reason"),
    funnelTable(designs),
    el("h2", {}, "Rounds"),
    rounds,
    el("h2", {}, "Environments in memory"),
    environments,
  );
}
