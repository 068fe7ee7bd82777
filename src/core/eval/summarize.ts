import { EVAL_BUCKETS, type EvalBucket, type ItemResult, type ResultSummary, type ToolCallErrorType, type ToolCallSummary } from "../../spec/index.js";
import { wilsonInterval } from "./intervals.js";

/**
 * Aggregates of `items`: wins (score 1.0 for questions, the environment's pass threshold for
 * episodes) with the Wilson 95 % interval, mean score (mean return for episodes), the rate of
 * invalid actions over all actions, tokens and errors. An item with an error counts as a loss
 * (it is in `items` and `errors`).
 */
export function summarizeItems(items: readonly ItemResult[]): ResultSummary {
  const wins = items.filter((item) => item.won).length;
  const actions = items.reduce((sum, item) => sum + item.actions, 0);
  const invalid = items.reduce((sum, item) => sum + item.invalidActions, 0);
  return {
    ...wilsonInterval(wins, items.length),
    items: items.length,
    wins,
    meanScore: items.length === 0 ? 0 : items.reduce((sum, item) => sum + item.score, 0) / items.length,
    invalidActionRate: actions === 0 ? 0 : invalid / actions,
    tokens: items.reduce((sum, item) => sum + item.tokens, 0),
    errors: items.filter((item) => item.error !== null).length,
    ...toolCallsField(items),
  };
}

/**
 * The tool-call replies of `items` ({@link ItemResult.replies}): how many parsed and validated and how
 * many were refused, by kind; `{}` when no item recorded replies (questions, text environments).
 */
function toolCallsField(items: readonly ItemResult[]): { toolCalls?: ToolCallSummary } {
  if (!items.some((item) => item.replies !== undefined)) return {};
  let valid = 0;
  const refused: Partial<Record<ToolCallErrorType, number>> = {};
  for (const reply of items.flatMap((item) => item.replies ?? [])) {
    if (reply.toolError !== undefined) refused[reply.toolError] = (refused[reply.toolError] ?? 0) + 1;
    else if ((reply.toolCalls ?? 0) > 0) valid += 1;
  }
  const attempts = valid + Object.values(refused).reduce((sum, count) => sum + count, 0);
  return { toolCalls: { valid, refused, validShare: attempts === 0 ? 0 : valid / attempts } };
}

/** The items of one level (environment suites), with their summary. */
export interface LevelSummary extends ResultSummary {
  readonly level: number;
}

/** A task (or environment) of a suite with its summary. */
export interface TaskSummary extends ResultSummary {
  readonly name: string;
  readonly bucket: EvalBucket | null;
  /** Per level, ascending; present when an item of the task has a level (see {@link summarizeLevels}). */
  readonly levels?: readonly LevelSummary[];
}

/** A suite with its summary and its tasks. */
export interface SuiteSummary extends ResultSummary {
  readonly name: string;
  readonly tasks: readonly TaskSummary[];
  /** Per level over the suite's environments, ascending; present when an item of the suite has a level. */
  readonly levels?: readonly LevelSummary[];
}

/**
 * Per-level summaries of `items`, ascending by level, with {@link summarizeItems}; an item
 * without a level (a family of one level) counts as level 0, its only level. Undefined when no
 * item has a level (question suites; evaluations from before levels).
 */
export function summarizeLevels(items: readonly ItemResult[]): LevelSummary[] | undefined {
  if (!items.some((item) => item.level !== undefined)) return undefined;
  return [...groupBy(items, (item) => String(item.level ?? 0))]
    .map(([level, levelItems]) => ({ level: Number(level), ...summarizeItems(levelItems) }))
    .sort((a, b) => a.level - b.level);
}

/** Whether `levels` is worth showing beside its pooled row: it holds a level other than 0 (so, with several, more than one). */
export function showsLevels(levels: readonly LevelSummary[] | undefined): levels is readonly LevelSummary[] {
  return levels !== undefined && levels.some((level) => level.level !== 0);
}

/** `{ levels }` when `items` have levels, else nothing (so summaries without levels keep their shape). */
function levelsField(items: readonly ItemResult[]): { levels?: LevelSummary[] } {
  const levels = summarizeLevels(items);
  return levels === undefined ? {} : { levels };
}

/** The summary of a whole evaluation. */
export interface EvaluationSummary {
  readonly suites: readonly SuiteSummary[];
  /**
   * The four buckets over every item in them (pooled: with the same items per task this is the
   * mean of the tasks' win rates, as SPADE reports). Buckets without items are left out.
   */
  readonly buckets: Readonly<Partial<Record<EvalBucket, ResultSummary>>>;
}

/** Groups `items` by suite, task and bucket (and level, {@link summarizeLevels}), each with {@link summarizeItems}; order of first appearance. */
export function summarizeEvaluation(items: readonly ItemResult[]): EvaluationSummary {
  const suites = groupBy(items, (item) => item.suite);
  const buckets: Partial<Record<EvalBucket, ResultSummary>> = {};
  for (const bucket of EVAL_BUCKETS) {
    const inBucket = items.filter((item) => item.bucket === bucket);
    if (inBucket.length > 0) buckets[bucket] = summarizeItems(inBucket);
  }
  return {
    suites: [...suites].map(([name, suiteItems]) => ({
      name,
      ...summarizeItems(suiteItems),
      tasks: [...groupBy(suiteItems, (item) => item.task)].map(([task, taskItems]) => ({ name: task, bucket: taskItems[0]?.bucket ?? null, ...summarizeItems(taskItems), ...levelsField(taskItems) })),
      ...levelsField(suiteItems),
    })),
    buckets,
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = key(item);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [item]);
    else group.push(item);
  }
  return groups;
}
