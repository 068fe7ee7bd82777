import type { ComparisonRow, EvaluationSummary } from "../core/eval/index.js";
import type { EvalRecord, ResultSummary } from "../spec/index.js";
import { escapeControlCharacters } from "./terminal-text.js";

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const interval = (summary: { low: number; high: number }) => `[${percent(summary.low)}, ${percent(summary.high)}]`;
const signed = (value: number) => `${value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}`;

/** The `--json` document of an evaluation: at least `{ model, suites: [{ name, items, winRate, low, high }], buckets: { name: { winRate, low, high } } }`. */
export function evaluationJson(record: EvalRecord, summary: EvaluationSummary, store: string): unknown {
  return {
    model: record.model,
    checkpoint: record.checkpoint,
    evalId: record.id,
    suiteVersion: record.suiteVersion,
    store,
    finishedAt: record.finishedAt,
    suites: summary.suites,
    buckets: summary.buckets,
  };
}

function line(name: string, summary: ResultSummary, width: number): string {
  return [
    name.padEnd(width),
    String(summary.items).padStart(5),
    percent(summary.winRate).padStart(7),
    interval(summary).padEnd(17),
    summary.meanScore.toFixed(3).padStart(7),
    percent(summary.invalidActionRate).padStart(8),
    String(summary.tokens).padStart(7),
    String(summary.errors).padStart(6),
  ].join(" ");
}

/** The evaluation as a table: suites with their tasks, then the buckets. */
export function formatEvaluation(record: EvalRecord, summary: EvaluationSummary, store: string): string {
  const width = Math.max(34, ...summary.suites.flatMap((suite) => suite.tasks.map((task) => task.name.length + 16)));
  const header = ["group".padEnd(width), "items".padStart(5), "win".padStart(7), "95% Wilson".padEnd(17), "score".padStart(7), "invalid".padStart(8), "tokens".padStart(7), "errors".padStart(6)].join(" ");
  const lines = [`model ${escapeControlCharacters(record.model)}${record.checkpoint === null ? "" : ` at ${escapeControlCharacters(record.checkpoint)}`} · ${record.suiteVersion} · eval ${record.id} (${store})`, header];
  for (const suite of summary.suites) {
    lines.push(line(suite.name, suite, width));
    for (const task of suite.tasks) lines.push(line(`  ${escapeControlCharacters(task.name)}${task.bucket === null ? "" : ` (${task.bucket})`}`, task, width));
  }
  for (const [bucket, value] of Object.entries(summary.buckets)) if (value !== undefined) lines.push(line(`bucket ${bucket}`, value, width));
  lines.push("win = score 1.0 (questions) or the environment's pass threshold (episodes); score = mean score / mean return; invalid = actions without a readable answer; errors count as losses");
  return lines.join("\n");
}

/** A comparison as a table: A, B and A − B in percentage points with its Newcombe 95 % interval. */
export function formatComparison(a: EvalRecord, b: EvalRecord, rows: readonly ComparisonRow[]): string {
  const label = (record: EvalRecord) => `${record.id} ${escapeControlCharacters(record.model)}${record.checkpoint === null ? "" : ` at ${escapeControlCharacters(record.checkpoint)}`}`;
  const width = Math.max(34, ...rows.map((row) => row.name.length + 1));
  const lines = [`A = ${label(a)}`, `B = ${label(b)}`, ["group".padEnd(width), "A".padStart(14), "B".padStart(14), "A−B (pp)".padStart(9), "95% Newcombe".padEnd(16)].join(" ")];
  for (const row of rows) {
    lines.push(
      [
        escapeControlCharacters(row.name).padEnd(width),
        `${percent(row.a.winRate)} (${row.a.items})`.padStart(14),
        `${percent(row.b.winRate)} (${row.b.items})`.padStart(14),
        signed(row.difference).padStart(9),
        `[${signed(row.low)}, ${signed(row.high)}]`.padEnd(16),
        row.low > 0 || row.high < 0 ? "*" : "",
      ].join(" "),
    );
  }
  lines.push("* = the interval excludes 0");
  return lines.join("\n");
}

/**
 * One line per stored plan for `eval --list`: each suite with its tasks × items, seed and difficulty
 * (question suites) or its environment and episode counts. The plan is read defensively: a plan
 * from another version gives what it holds, never an exception.
 */
export function planSummary(plan: unknown): string {
  const suites = (plan as { suites?: unknown } | null)?.suites;
  if (!Array.isArray(suites)) return "";
  return suites
    .map((suite: { name?: unknown; tasks?: unknown; items?: unknown; seed?: unknown; difficulty?: unknown; environments?: unknown }) => {
      const name = escapeControlCharacters(String(suite?.name ?? "?"));
      if (Array.isArray(suite?.tasks)) return `${name}: ${suite.tasks.length} tasks × ${String(suite.items ?? "?")} items, seed ${String(suite.seed ?? "?")}, ${escapeControlCharacters(String(suite.difficulty ?? "default"))}`;
      if (Array.isArray(suite?.environments)) {
        const episodes = suite.environments.reduce((total: number, environment: { seeds?: unknown }) => total + (Array.isArray(environment?.seeds) ? environment.seeds.length : 0), 0);
        return `${name}: ${suite.environments.length} environments, ${episodes} episodes`;
      }
      return name;
    })
    .join("; ");
}

/**
 * Settings two stored plans (`EvalRecord.plan`, as `envforge eval` writes them: see
 * `planDocument`) do not share: the seed and difficulty of a question suite both hold (another
 * seed asks other questions), the episode seeds of an environment suite, and the answer and
 * episode settings (token bounds, temperature, turns). Items per task are left to
 * `comparisonWarnings`. Empty when they match or a plan does not have that shape; read defensively.
 */
export function planDifferences(a: unknown, b: unknown): string[] {
  const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});
  const differences: string[] = [];
  const differ = (label: string, left: unknown, right: unknown) => {
    if (left !== undefined && right !== undefined && JSON.stringify(left) !== JSON.stringify(right)) differences.push(`${escapeControlCharacters(label)} ${JSON.stringify(left)} vs ${JSON.stringify(right)}`);
  };
  const suites = (plan: unknown) => (Array.isArray(record(plan).suites) ? (record(plan).suites as unknown[]).map(record) : []);
  const episodeSeeds = (suite: Record<string, unknown>) => (Array.isArray(suite.environments) ? suite.environments.map((environment) => [record(environment).id, record(environment).seeds]) : undefined);
  for (const suite of suites(a)) {
    const other = suites(b).find((candidate) => candidate.name === suite.name);
    if (other === undefined) continue;
    for (const key of ["seed", "difficulty"]) differ(`${String(suite.name)} ${key}`, suite[key], other[key]);
    const [left, right] = [episodeSeeds(suite), episodeSeeds(other)];
    if (left !== undefined && right !== undefined && JSON.stringify(left) !== JSON.stringify(right)) differences.push(`${escapeControlCharacters(String(suite.name))} episode seeds differ`);
  }
  for (const part of ["questions", "episodes"]) {
    for (const [key, value] of Object.entries(record(record(a)[part]))) differ(`${part}.${key}`, value, record(record(b)[part])[key]);
  }
  return differences;
}
