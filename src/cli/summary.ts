import { formatWindow } from "../core/curriculum/index.js";
import type { LevelReport, RoundReport } from "../spec/index.js";

const percent = (value: number | null) => (value === null ? "n/a" : `${Math.round(value * 100)}%`);
const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(4)}`;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** The human summary printed at the end of `envforge run`. */
export function formatSummary(reports: readonly RoundReport[], details: { model: string; out: string; reportPath: string; environments: number; store?: string }): string {
  const lines = [`envforge run summary (model ${details.model})`];
  for (const report of reports) {
    const rejected = Object.entries(report.rejected)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(", ");
    lines.push(
      `round ${report.round}: ${plural(report.proposed, "design")} proposed, ${report.admitted} admitted${rejected ? ` (rejected: ${rejected})` : ""}; ` +
        `solver ${plural(report.solver.episodes, "episode")}, win rate ${percent(report.solver.winRateNoHint)} without hint, ${percent(report.solver.winRateHint)} with hint` +
        (report.solver.invalidActionRate == null ? "" : `, ${percent(report.solver.invalidActionRate)} of actions invalid`) +
        (report.solver.signal === undefined || report.solver.signal.groups === 0
          ? ""
          : `, ${report.solver.signal.returnVariance} of ${plural(report.solver.signal.groups, "group")} with a learning signal`) +
        "; " +
        `designer mean reward ${report.designer.meanReward === null ? "n/a" : report.designer.meanReward.toFixed(2)}; ${roundSeconds(report)}`,
    );
    const names = report.designer.admittedNames ?? [];
    if (names.length > 0) {
      const turns = Object.entries(report.designer.admittedOnTurn ?? {}).map(([turn, count]) => `${count} on attempt ${Number(turn) + 1}`).join(", ");
      lines.push(`  admitted: ${names.join(", ")}${turns ? ` (${turns})` : ""}`);
    }
    for (const level of report.levels ?? []) lines.push(`  ${formatLevelReport(level)}`);
    for (const [error, count] of Object.entries(report.errors)) lines.push(`  error x${count}: ${error}`);
  }
  const admitted = reports.reduce((total, report) => total + report.admitted, 0);
  const proposed = reports.reduce((total, report) => total + report.proposed, 0);
  lines.push(`${admitted} of ${plural(proposed, "design")} admitted; ${plural(details.environments, "environment")} in memory.`);
  const answered = reports.some((report) => report.designer.meanReward !== null);
  if (proposed > 0 && !answered) {
    lines.push("The model answered no Designer prompt: see the errors above.");
  } else if (proposed > 0 && admitted === 0) {
    lines.push("No design was admitted: small models rarely write a working environment; try --model embedded:qwen2.5-coder-1.5b (ENVFORGE_MODELS=qwen2.5-coder-1.5b ./scripts/setup.sh) or a larger model.");
  }
  const trainer = reports.at(-1)?.trainer;
  // the last step that trained Solver tokens sampled on the engine (a step of only delayed Designer datums measures none)
  const measured = reports.filter((report) => (report.trainer.samplerMismatch?.tokens ?? 0) > 0).at(-1);
  const mismatch = measured?.trainer.samplerMismatch;
  const mismatchRound = measured?.round;
  lines.push(
    trainer === undefined
      ? "trainer: n/a"
      : trainer.name === "noop"
        ? "trainer: noop (no policy update is made by the noop trainer)"
        : `trainer: ${trainer.name}, policy version ${trainer.policyVersion}, ${plural(trainer.datums, "datum")} in the last step` +
          (trainer.probe === undefined
            ? ""
            : `; probe logprob ${trainer.probe.meanLogprob.toFixed(4)}/token, change since the start ${signed(trainer.probe.deltaFromStart)}/token over ${plural(trainer.probe.tokens, "token")}`) +
          (mismatch === undefined
            ? reports.some((report) => report.trainer.samplerMismatch !== undefined)
              ? "; sampled on llama.cpp (no step trained Solver tokens, so no engine–trainer mismatch was measured)"
              : ""
            : `; sampled on llama.cpp, engine–trainer KL ${mismatch.klEstimate.toFixed(4)}/token over ${plural(mismatch.tokens, "Solver token")} (step ${mismatchRound}), ${(100 * mismatch.truncatedFraction).toFixed(1)} % truncated`),
  );
  lines.push(`store: ${details.store ?? `${details.out}/envforge.db`}  report: ${details.reportPath}`);
  return lines.join("\n");
}

/**
 * One line of a round's level window: `number-guess levels [0, 1] of 7 -> [0, 2] (raised); without hint, level 0: 3/4 won, level 1: 1/4 won`.
 * The counts are the no-hint episodes the controller decides on (the progress line counts the hint episodes too).
 */
export function formatLevelReport(level: LevelReport): string {
  const window = (range: readonly [number, number]) => formatWindow({ low: range[0], high: range[1] });
  const moved = level.next[1] > level.window[1] ? " (raised)" : " (unchanged)";
  const played = Object.entries(level.byLevel)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([at, tally]) => `level ${at}: ${tally.wins}/${tally.episodes} won`)
    .join(", ");
  return `${level.name} levels ${window(level.window)} of ${level.count} -> ${window(level.next)}${moved}${played ? `; without hint, ${played}` : ""}`;
}

/** A round's wall-clock time; a resumed round shows the resumed part, the earlier attempts' and the sum. */
function roundSeconds(report: RoundReport): string {
  if (report.earlierSeconds === undefined) return `${report.seconds}s`;
  const total = Math.round((report.seconds + report.earlierSeconds) * 10) / 10;
  return `${report.seconds}s resumed + ${report.earlierSeconds}s before the resume = ${total}s`;
}
