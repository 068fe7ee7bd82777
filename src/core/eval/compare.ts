import type { ResultSummary } from "../../spec/index.js";
import { newcombeDifference, type RateDifference } from "./intervals.js";
import type { EvaluationSummary } from "./summarize.js";

/** One row of a comparison: the same group (suite, task or bucket) in evaluations A and B. */
export interface ComparisonRow extends RateDifference {
  /** `suite`, `suite/task` or `bucket:Name`. */
  readonly name: string;
  readonly a: ResultSummary;
  readonly b: ResultSummary;
}

/**
 * Win-rate differences A − B with Newcombe 95 % intervals for every suite, task and bucket both
 * evaluations hold, in A's order.
 */
export function compareEvaluations(a: EvaluationSummary, b: EvaluationSummary): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  const row = (name: string, left: ResultSummary, right: ResultSummary) =>
    rows.push({ name, a: left, b: right, ...newcombeDifference({ wins: left.wins, trials: left.items }, { wins: right.wins, trials: right.items }) });
  for (const suite of a.suites) {
    const other = b.suites.find((candidate) => candidate.name === suite.name);
    if (other === undefined) continue;
    row(suite.name, suite, other);
    for (const task of suite.tasks) {
      const otherTask = other.tasks.find((candidate) => candidate.name === task.name);
      if (otherTask !== undefined) row(`${suite.name}/${task.name}`, task, otherTask);
    }
  }
  for (const [bucket, summary] of Object.entries(a.buckets)) {
    const other = b.buckets[bucket as keyof typeof b.buckets];
    if (summary !== undefined && other !== undefined) row(`bucket:${bucket}`, summary, other);
  }
  return rows;
}
