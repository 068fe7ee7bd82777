import type { ResultSummary } from "../../spec/index.js";
import { newcombeDifference, type RateDifference } from "./intervals.js";
import { showsLevels, type EvaluationSummary, type LevelSummary } from "./summarize.js";

/** One row of a comparison: the same group (suite, task, level or bucket) in evaluations A and B. */
export interface ComparisonRow extends RateDifference {
  /** `suite`, `suite level N`, `suite/task`, `suite/task level N` or `bucket:Name`. */
  readonly name: string;
  readonly a: ResultSummary;
  readonly b: ResultSummary;
}

/**
 * Win-rate differences A − B with Newcombe 95 % intervals for every suite, task and bucket both
 * evaluations hold, in A's order; and, where either played a level other than 0, for every level
 * of a suite or task both hold (items of the same level compared with each other).
 */
export function compareEvaluations(a: EvaluationSummary, b: EvaluationSummary): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  const row = (name: string, left: ResultSummary, right: ResultSummary) =>
    rows.push({ name, a: left, b: right, ...newcombeDifference({ wins: left.wins, trials: left.items }, { wins: right.wins, trials: right.items }) });
  const levelRows = (name: string, left: readonly LevelSummary[] | undefined, right: readonly LevelSummary[] | undefined) => {
    if (!showsLevels(left) && !showsLevels(right)) return;
    for (const level of left ?? []) {
      const otherLevel = right?.find((candidate) => candidate.level === level.level);
      if (otherLevel !== undefined) row(`${name} level ${level.level}`, level, otherLevel);
    }
  };
  for (const suite of a.suites) {
    const other = b.suites.find((candidate) => candidate.name === suite.name);
    if (other === undefined) continue;
    row(suite.name, suite, other);
    levelRows(suite.name, suite.levels, other.levels);
    for (const task of suite.tasks) {
      const otherTask = other.tasks.find((candidate) => candidate.name === task.name);
      if (otherTask === undefined) continue;
      row(`${suite.name}/${task.name}`, task, otherTask);
      levelRows(`${suite.name}/${task.name}`, task.levels, otherTask.levels);
    }
  }
  for (const [bucket, summary] of Object.entries(a.buckets)) {
    const other = b.buckets[bucket as keyof typeof b.buckets];
    if (summary !== undefined && other !== undefined) row(`bucket:${bucket}`, summary, other);
  }
  return rows;
}

/**
 * Why the suite and bucket rows of a comparison may not compare like with like: suites or tasks
 * only one evaluation holds, tasks with a different number of items (the pooled rows then mix
 * task sets or weights), and suites played at different levels (an item without a level counts
 * as level 0). Empty when both evaluations cover the same tasks with the same items and levels.
 */
export function comparisonWarnings(a: EvaluationSummary, b: EvaluationSummary): string[] {
  const warnings: string[] = [];
  const names = (summary: EvaluationSummary) => new Set(summary.suites.map((suite) => suite.name));
  for (const [only, summary, other] of [["A", a, b], ["B", b, a]] as const) {
    const missing = [...names(summary)].filter((name) => !names(other).has(name));
    if (missing.length > 0) warnings.push(`suite${missing.length === 1 ? "" : "s"} only in ${only}: ${missing.join(", ")} (no row)`);
  }
  for (const suite of a.suites) {
    const other = b.suites.find((candidate) => candidate.name === suite.name);
    if (other === undefined) continue;
    const onlyA = suite.tasks.filter((task) => !other.tasks.some((candidate) => candidate.name === task.name)).map((task) => task.name);
    const onlyB = other.tasks.filter((task) => !suite.tasks.some((candidate) => candidate.name === task.name)).map((task) => task.name);
    const resized = suite.tasks.flatMap((task) => {
      const otherTask = other.tasks.find((candidate) => candidate.name === task.name);
      return otherTask !== undefined && otherTask.items !== task.items ? [`${task.name} (${task.items} vs ${otherTask.items})`] : [];
    });
    if (onlyA.length > 0) warnings.push(`${suite.name}: ${onlyA.length} task${onlyA.length === 1 ? "" : "s"} only in A (${onlyA.slice(0, 5).join(", ")}${onlyA.length > 5 ? ", …" : ""}): its suite and bucket rows mix task sets`);
    if (onlyB.length > 0) warnings.push(`${suite.name}: ${onlyB.length} task${onlyB.length === 1 ? "" : "s"} only in B (${onlyB.slice(0, 5).join(", ")}${onlyB.length > 5 ? ", …" : ""}): its suite and bucket rows mix task sets`);
    if (resized.length > 0) warnings.push(`${suite.name}: items per task differ (${resized.slice(0, 5).join(", ")}${resized.length > 5 ? ", …" : ""}): pooled rows weight tasks differently`);
    const levels = (summary: { levels?: readonly LevelSummary[] }) => (summary.levels ?? [{ level: 0 }]).map((level) => level.level).join(", ");
    if (levels(suite) !== levels(other)) warnings.push(`${suite.name}: levels differ (A ${levels(suite)}; B ${levels(other)}): its suite and task rows pool different levels; compare the level rows`);
  }
  return warnings;
}
