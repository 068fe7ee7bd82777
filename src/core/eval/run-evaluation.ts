import { RETRYABLE_ITEM_ERRORS, SuiteError, type EvalRecord, type EvalStore, type ItemErrorCode, type ItemResult, type LanguageModel, type QuestionSuite, type Sandbox, type SuiteItem, type TaskItemsRequest } from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { evaluateEpisodes, plannedItemCount, type EpisodeItem, type EpisodeSampling, type PlannedEnvironment } from "./environment-items.js";
import { evaluateQuestion, type PlannedTask, type QuestionSampling } from "./question-items.js";
import { timeLimitedModel } from "./time-limited-model.js";

/** A question suite (Reasoning Gym) in an evaluation plan: its tasks, items per task and seed. */
export interface QuestionSuitePlan {
  readonly kind: "questions";
  /** Suite name in results, e.g. `reasoning-gym`. */
  readonly name: string;
  readonly suite: QuestionSuite;
  readonly tasks: readonly PlannedTask[];
  /** Items per task. */
  readonly items: number;
  /** Seed of every task's items. */
  readonly seed: number;
}

/** An environment suite (held-out environments or held-out seeds) in an evaluation plan. */
export interface EnvironmentSuitePlan {
  readonly kind: "environments";
  /** Suite name in results, e.g. `holdout`. */
  readonly name: string;
  readonly environments: readonly PlannedEnvironment[];
}

/** One suite of a plan. */
export type SuitePlan = QuestionSuitePlan | EnvironmentSuitePlan;

/** Progress of an evaluation (the CLI's bar). */
export interface EvalProgress {
  /** Before any item runs: the plan's item count and how many the store already holds. */
  started?(total: number, alreadyDone: number): void;
  itemDone?(result: ItemResult): void;
}

/** What {@link runEvaluation} needs; time is injected. */
export interface RunEvaluationOptions {
  readonly record: Omit<EvalRecord, "finishedAt">;
  readonly store: EvalStore;
  readonly model: LanguageModel;
  /** Needed when the plan holds an environment suite. */
  readonly sandbox?: Sandbox;
  readonly suites: readonly SuitePlan[];
  readonly questions: QuestionSampling;
  readonly episodes: EpisodeSampling;
  /** Limit of one generation, milliseconds (a model past it is an item's `model_timeout`). */
  readonly generationTimeoutMs: number;
  /** Questions asked at once (the engine's sequences). @default episodes.concurrency */
  readonly concurrency?: number;
  readonly progress?: EvalProgress;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/** Key of an item within an evaluation. */
export function itemKey(item: Pick<ItemResult, "suite" | "task" | "index">): string {
  return JSON.stringify([item.suite, item.task, item.index]);
}

/** Whether a stored item is final (a resumed evaluation does not redo it): scored, or failed for a reason retrying would not change. */
export function isFinal(item: ItemResult): boolean {
  return item.error === null || !RETRYABLE_ITEM_ERRORS.has(item.error.code);
}

/**
 * Runs an evaluation plan and returns every item of it. Items are stored as they finish; items
 * the store already holds as final ({@link isFinal}) are not redone, so an interrupted evaluation
 * resumes where it stopped (model time-outs and failed requests are tried again). A task the
 * suite cannot generate (unknown task, parameters it refuses) gives each of its items that
 * error; no per-item failure stops the evaluation.
 *
 * @throws SuiteError `suite_unavailable` when a question suite cannot run at all (not installed)
 * @throws TypeError when the plan holds an environment suite and no sandbox was given
 * @throws StoreError when the store cannot be written
 */
export async function runEvaluation(options: RunEvaluationOptions): Promise<ItemResult[]> {
  const { store, record } = options;
  const now = options.now ?? (() => new Date());
  store.beginEval(record);
  const stored = new Map(store.listItems(record.id).map((item) => [itemKey(item), item]));
  const final = (key: string) => {
    const item = stored.get(key);
    return item !== undefined && isFinal(item);
  };
  const total = options.suites.reduce((sum, suite) => sum + (suite.kind === "questions" ? suite.tasks.length * suite.items : suite.environments.reduce((count, environment) => count + plannedItemCount(environment), 0)), 0);
  const alreadyDone = [...stored.values()].filter(isFinal).length;
  options.progress?.started?.(total, alreadyDone);
  const model = timeLimitedModel(options.model, options.generationTimeoutMs);
  const save = (result: ItemResult) => {
    store.saveItem(record.id, result);
    stored.set(itemKey(result), result);
    options.progress?.itemDone?.(result);
  };

  for (const suite of options.suites) {
    if (suite.kind === "questions") await runQuestionSuite(suite, model, options, final, save);
    else {
      const items: EpisodeItem[] = suite.environments.flatMap((environment) =>
        Array.from({ length: plannedItemCount(environment) }, (_, index) => ({ suite: suite.name, environment, index })).filter((item) => !final(itemKey({ suite: suite.name, task: environment.package.manifest.name, index: item.index }))),
      );
      if (items.length === 0) continue;
      if (options.sandbox === undefined) throw new TypeError(`suite ${suite.name} plays environments: runEvaluation needs a sandbox`);
      await evaluateEpisodes(options.sandbox, model, items, options.episodes, save);
    }
  }
  store.finishEval(record.id, now().toISOString());
  return store.listItems(record.id);
}

async function runQuestionSuite(suite: QuestionSuitePlan, model: LanguageModel, options: RunEvaluationOptions, final: (key: string) => boolean, save: (result: ItemResult) => void): Promise<void> {
  const pending: { task: PlannedTask; request: TaskItemsRequest; generated: SuiteItem }[] = [];
  let instruction: string | null = null;
  for (const task of suite.tasks) {
    const indices = Array.from({ length: suite.items }, (_, index) => index).filter((index) => !final(itemKey({ suite: suite.name, task: task.name, index })));
    if (indices.length === 0) continue;
    instruction ??= (await suite.suite.info()).systemPrompt;
    const request: TaskItemsRequest = { task: task.name, config: task.config, seed: suite.seed, size: suite.items };
    let generated: SuiteItem[];
    try {
      generated = await suite.suite.generate(request);
    } catch (error) {
      if (!(error instanceof SuiteError) || error.code === "suite_unavailable") throw error;
      const code: ItemErrorCode = error.code === "suite_protocol" ? "generation_failed" : error.code;
      for (const index of indices) save(failedItem(suite.name, task, index, suite.seed, code, error.message));
      continue;
    }
    for (const index of indices) {
      const item = generated[index];
      if (item === undefined) save(failedItem(suite.name, task, index, suite.seed, "generation_failed", `the suite generated ${generated.length} items, not ${suite.items}`));
      else pending.push({ task, request, generated: item });
    }
  }
  if (pending.length === 0 || instruction === null) return;
  const text = instruction;
  await mapWithConcurrency(pending, options.concurrency ?? options.episodes.concurrency, async (item) => {
    save(await evaluateQuestion(suite.suite, model, { suiteName: suite.name, task: item.task, request: item.request, generated: item.generated, instruction: text }, options.questions));
  });
}

function failedItem(suite: string, task: PlannedTask, index: number, seed: number, code: ItemErrorCode, message: string): ItemResult {
  return { suite, task: task.name, bucket: task.bucket, index, seed, score: 0, won: false, actions: 0, invalidActions: 0, tokens: 0, seconds: 0, error: { code, message }, response: "", answer: null };
}
