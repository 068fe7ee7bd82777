import { z } from "zod";
import { showsLevels, type ComparisonRow, type EvaluationSummary } from "../core/eval/index.js";
import type { EvalRecord, ResultSummary, ToolCallSummary } from "../spec/index.js";
import { escapeControlCharacters } from "./terminal-text.js";

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const interval = (summary: { low: number; high: number }) => `[${percent(summary.low)}, ${percent(summary.high)}]`;
const signed = (value: number) => `${value >= 0 ? "+" : ""}${(100 * value).toFixed(1)}`;

/**
 * The `--json` document of an evaluation: at least `{ model, suites: [{ name, items, winRate, low, high }], buckets: { name: { winRate, low, high } } }`;
 * suites and their tasks played at levels also hold `levels: [{ level, items, winRate, low, high, … }]`.
 */
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

/** A tool suite's tool-call replies: the share that parsed and validated, and the refusals by kind. */
function toolCallLine(name: string, calls: ToolCallSummary): string {
  const refused = Object.entries(calls.refused).map(([kind, count]) => `${kind} ${count}`);
  const attempts = calls.valid + Object.values(calls.refused).reduce((sum, count) => sum + count, 0);
  if (attempts === 0) return `${name}: no tool-call replies (every reply was a final message, or no episode was played)`;
  return `${name}: ${calls.valid} of ${attempts} tool-call replies parsed and validated (${percent(calls.validShare)})${refused.length === 0 ? "" : `; refused: ${refused.join(", ")}`}`;
}

/** The evaluation as a table: suites (with a row per level when played at a level other than 0) and their tasks, then the buckets. */
export function formatEvaluation(record: EvalRecord, summary: EvaluationSummary, store: string): string {
  const width = Math.max(34, ...summary.suites.flatMap((suite) => suite.tasks.map((task) => task.name.length + 16)));
  const header = ["group".padEnd(width), "items".padStart(5), "win".padStart(7), "95% Wilson".padEnd(17), "score".padStart(7), "invalid".padStart(8), "tokens".padStart(7), "errors".padStart(6)].join(" ");
  const lines = [`model ${escapeControlCharacters(record.model)}${record.checkpoint === null ? "" : ` at ${escapeControlCharacters(record.checkpoint)}`} · ${record.suiteVersion} · eval ${record.id} (${store})`, header];
  for (const suite of summary.suites) {
    lines.push(line(suite.name, suite, width));
    if (showsLevels(suite.levels)) for (const level of suite.levels) lines.push(line(`  level ${level.level}`, level, width));
    for (const task of suite.tasks) lines.push(line(`  ${escapeControlCharacters(task.name)}${task.bucket === null ? "" : ` (${task.bucket})`}`, task, width));
  }
  for (const [bucket, value] of Object.entries(summary.buckets)) if (value !== undefined) lines.push(line(`bucket ${bucket}`, value, width));
  lines.push("win = score 1.0 (questions) or the environment's pass threshold (episodes); score = mean score / mean return; invalid = actions without a readable answer; errors count as losses");
  for (const suite of summary.suites) if (suite.toolCalls !== undefined) lines.push(toolCallLine(suite.name, suite.toolCalls));
  if (summary.suites.some((suite) => showsLevels(suite.levels))) lines.push("level rows pool a suite's environments at that level; environment rows pool their levels (--json has each environment's levels)");
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
 * The parts of a stored plan (`EvalRecord.plan`, as `envforge eval` writes it) that `--list` and
 * `--compare` read; every field optional, unknown ones kept, so a plan from another version still reads.
 */
const StoredPlanSchema = z
  .object({
    suites: z
      .array(
        z
          .object({
            name: z.string().optional(),
            tasks: z.array(z.unknown()).optional(),
            items: z.number().optional(),
            seed: z.number().optional(),
            difficulty: z.string().optional(),
            environments: z.array(z.object({ id: z.string().optional(), seeds: z.array(z.number()).optional(), levels: z.array(z.number()).optional() }).passthrough()).optional(),
          })
          .passthrough()
          .catch({}),
      )
      .catch([]),
    questions: z.record(z.string(), z.unknown()).catch({}),
    episodes: z.record(z.string(), z.unknown()).catch({}),
  })
  .partial();

type StoredPlan = z.infer<typeof StoredPlanSchema>;

/** A stored plan read defensively: what of {@link StoredPlanSchema} it holds, `{}` when it is not an object. */
function readStoredPlan(plan: unknown): StoredPlan {
  const parsed = StoredPlanSchema.safeParse(plan);
  return parsed.success ? parsed.data : {};
}

/**
 * One line per stored plan for `eval --list`: each suite with its tasks × items, seed and difficulty
 * (question suites) or its environment and episode counts. The plan is read defensively: a plan
 * from another version gives what it holds, never an exception.
 */
export function planSummary(plan: unknown): string {
  return (readStoredPlan(plan).suites ?? [])
    .map((suite) => {
      const name = escapeControlCharacters(suite.name ?? "?");
      if (suite.tasks !== undefined) return `${name}: ${suite.tasks.length} tasks × ${suite.items ?? "?"} items, seed ${suite.seed ?? "?"}, ${escapeControlCharacters(suite.difficulty ?? "default")}`;
      if (suite.environments !== undefined) {
        const episodes = suite.environments.reduce((total, environment) => total + (environment.seeds?.length ?? 0) * (environment.levels?.length ?? 1), 0);
        const levels = [...new Set(suite.environments.flatMap((environment) => environment.levels ?? []))].sort((a, b) => a - b);
        return `${name}: ${suite.environments.length} environments, ${episodes} episodes${levels.length === 0 ? "" : `, levels ${levels.join(",")}`}`;
      }
      return name;
    })
    .join("; ");
}

/**
 * Settings two stored plans do not share: the seed and difficulty of a question suite both hold
 * (another seed asks other questions), the episode seeds of an environment suite, and the answer
 * and episode settings (token bounds, temperature, turns). Items per task are left to
 * `comparisonWarnings`. Empty when they match or a plan does not have that shape.
 */
export function planDifferences(a: unknown, b: unknown): string[] {
  const [left, right] = [readStoredPlan(a), readStoredPlan(b)];
  const differences: string[] = [];
  const differ = (label: string, one: unknown, other: unknown) => {
    if (one !== undefined && other !== undefined && JSON.stringify(one) !== JSON.stringify(other)) differences.push(`${escapeControlCharacters(label)} ${JSON.stringify(one)} vs ${JSON.stringify(other)}`);
  };
  for (const suite of left.suites ?? []) {
    const other = right.suites?.find((candidate) => candidate.name === suite.name);
    if (other === undefined) continue;
    differ(`${suite.name} seed`, suite.seed, other.seed);
    differ(`${suite.name} difficulty`, suite.difficulty, other.difficulty);
    const seeds = (environments: typeof suite.environments) => environments?.map((environment) => [environment.id, environment.seeds]);
    if (suite.environments !== undefined && other.environments !== undefined && JSON.stringify(seeds(suite.environments)) !== JSON.stringify(seeds(other.environments))) {
      differences.push(`${escapeControlCharacters(suite.name ?? "?")} episode seeds differ`);
    }
  }
  for (const part of ["questions", "episodes"] as const) {
    for (const [key, value] of Object.entries(left[part] ?? {})) differ(`${part}.${key}`, value, right[part]?.[key]);
  }
  return differences;
}
