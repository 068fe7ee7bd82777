import { EnvforgeError } from "./errors.js";
import type { ToolCallErrorType } from "./tool-call.js";

/**
 * Held-out evaluation: the interfaces of question suites (Reasoning Gym) and of the eval
 * store, and the data types of per-item results and their summaries.
 */

/** SPADE's four Reasoning Gym buckets (Golden Goose rollup, arXiv:2601.22975 Sec. 3 / Table 3). */
export const EVAL_BUCKETS = ["Math", "Algorithmic", "Cognition", "Logic"] as const;
/** One of {@link EVAL_BUCKETS}. */
export type EvalBucket = (typeof EVAL_BUCKETS)[number];

/** Task difficulty: the task's default parameters, or the Reasoning Gym paper's "hard" ones (arXiv:2505.24760, App. A.3). */
export type EvalDifficulty = "default" | "hard";

/** One task of a question suite, as the suite describes it. */
export interface SuiteTask {
  readonly name: string;
  /** The suite's own category (Reasoning Gym: the package folder of the task, e.g. `arithmetic`). */
  readonly category: string;
}

/** What a question suite offers. */
export interface SuiteInfo {
  /** Version of the suite's package, e.g. `0.1.25`. */
  readonly version: string;
  /** The suite's own answer-format instruction (Reasoning Gym's `SYSTEM_PROMPTS["default"]`). */
  readonly systemPrompt: string;
  readonly tasks: readonly SuiteTask[];
}

/** Which items of a task: generated from `config` with `seed`, `size` of them. */
export interface TaskItemsRequest {
  readonly task: string;
  /** Task parameters (Reasoning Gym config keys); `{}` = the task's defaults. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly seed: number;
  /** Items generated; item `i` is the same for every request with the same fields. */
  readonly size: number;
}

/** One generated item: the question and the reference answer (null when the task has many). */
export interface SuiteItem {
  readonly index: number;
  readonly question: string;
  readonly answer: string | null;
}

/** The outcome of scoring one answer: a score in [0, 1], or a per-item error (a value, never thrown). */
export type ItemScore = { readonly kind: "ok"; readonly score: number } | { readonly kind: "error"; readonly code: ItemErrorCode; readonly message: string };

/**
 * A single-turn question suite: generates items and scores answers with its own scorers.
 * Implementation: the Reasoning Gym bridge (`adapters/suites/reasoning-gym`).
 *
 * @throws SuiteError from `info` / `generate` for a missing package (`suite_unavailable`), an unknown
 *   task (`unknown_task`) or parameters the task refuses (`invalid_config`)
 */
export interface QuestionSuite {
  readonly name: string;
  info(): Promise<SuiteInfo>;
  generate(request: TaskItemsRequest): Promise<SuiteItem[]>;
  /** Scores `answer` (null: the reply held none) for item `index`; a crashing scorer is an `error` outcome. */
  score(request: TaskItemsRequest, index: number, answer: string | null): Promise<ItemScore>;
  close(): Promise<void>;
}

/** Codes of a {@link SuiteError}. */
export type SuiteErrorCode = "suite_unavailable" | "unknown_task" | "invalid_config" | "generation_failed" | "suite_protocol";

/** A suite cannot run a whole task (or at all). `retryable` only for a bridge that died. */
export class SuiteError extends EnvforgeError {
  /** The stable code, narrowed to {@link SuiteErrorCode}. */
  declare readonly code: SuiteErrorCode;

  constructor(code: SuiteErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(code, message, options);
  }
}

/**
 * Codes of a per-item error: the model timed out or failed, the scorer crashed or returned no
 * number, the task could not be generated, or the environment could not be played.
 */
export type ItemErrorCode = "model_timeout" | "model_failed" | "scorer_crashed" | "scorer_invalid" | "unknown_task" | "invalid_config" | "generation_failed" | "environment_failed";

/** Item error codes that a resumed evaluation tries again (the others are final). */
export const RETRYABLE_ITEM_ERRORS: ReadonlySet<ItemErrorCode> = new Set(["model_timeout", "model_failed"]);

/** Where an item sits: suite, task (or environment), bucket, and its index in the task. */
export interface ItemKey {
  readonly suite: string;
  readonly task: string;
  /** A {@link EvalBucket} for Reasoning Gym tasks; null for environment suites. */
  readonly bucket: EvalBucket | null;
  readonly index: number;
  /** Item seed: the task seed (Reasoning Gym) or the episode seed (environments). */
  readonly seed: number;
  /**
   * The level the episode was played at (environment suites: the level `eval --levels` planned,
   * else the level the episode recorded); absent for questions and one-level families played
   * without `--levels`. Summaries count an item without one as level 0.
   */
  readonly level?: number;
}

/** One evaluated item. A win is a score of exactly 1.0 (SPADE). */
export interface ItemResult extends ItemKey {
  /** Score (Reasoning Gym) or episode return (environments). */
  readonly score: number;
  readonly won: boolean;
  /** Model actions: 1 for a question, the turns of an episode. */
  readonly actions: number;
  /** Actions without a readable answer (no `<answer>`/`\boxed{}`), or turns the environment marked invalid. */
  readonly invalidActions: number;
  /** Completion tokens sampled (0 when the provider does not count them). */
  readonly tokens: number;
  readonly seconds: number;
  /** The per-item error, when the item could not be evaluated (then `score` 0, not won). */
  readonly error: { readonly code: ItemErrorCode; readonly message: string } | null;
  /** The model's last reply and the extracted answer (questions), for inspection. */
  readonly response: string;
  readonly answer: string | null;
  /**
   * A tool environment's episode (BFCL included): every reply in order, with how many tool calls it
   * made or why its calls were refused (a reply with neither is a final message). Absent for questions
   * and text environments.
   */
  readonly replies?: readonly ToolReplyRecord[];
}

/** One Solver reply in a tool environment, as played. */
export interface ToolReplyRecord {
  readonly text: string;
  /** Tool calls the reply made that passed their schemas and ran. */
  readonly toolCalls?: number;
  /** Why the reply's calls were refused before reaching the environment. */
  readonly toolError?: ToolCallErrorType;
}

/** Tool-call replies of a group of tool-environment items: those whose calls parsed and validated, and those refused, by kind. */
export interface ToolCallSummary {
  /** Replies whose tool calls all parsed and validated against their schemas. */
  readonly valid: number;
  /** Replies whose calls were refused, per {@link ToolCallErrorType}. */
  readonly refused: Readonly<Partial<Record<ToolCallErrorType, number>>>;
  /** `valid / (valid + refused)`; 0 when there were no call attempts. */
  readonly validShare: number;
}

/** A win rate with its 95 % interval. */
export interface RateInterval {
  readonly winRate: number;
  readonly low: number;
  readonly high: number;
}

/** Aggregates of a group of items (a task, a bucket, a suite). */
export interface ResultSummary extends RateInterval {
  readonly items: number;
  readonly wins: number;
  readonly meanScore: number;
  readonly invalidActionRate: number;
  readonly tokens: number;
  readonly errors: number;
  /** Tool-call replies, when any item has {@link ItemResult.replies}. */
  readonly toolCalls?: ToolCallSummary;
}

/** An evaluation: which model at which checkpoint on which suites, and when. */
export interface EvalRecord {
  /** Stable id derived from model, checkpoint and plan: the same invocation resumes the same evaluation. */
  readonly id: string;
  readonly model: string;
  /** `RUN_DIR@step-N`, or null for a plain model. */
  readonly checkpoint: string | null;
  /** Versions of every suite, e.g. `reasoning-gym 0.1.25 / buckets v1 / prompt v1`. */
  readonly suiteVersion: string;
  /** The plan: suites, tasks, difficulty, items, seeds, sampling. */
  readonly plan: unknown;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

/**
 * Persistent results of evaluations; items are written as they finish, so an interrupted
 * evaluation resumes without redoing scored items.
 *
 * @throws StoreError when the store cannot be opened or written
 */
export interface EvalStore {
  readonly location: string;
  /** Inserts the evaluation unless its id is present; returns the stored record. */
  beginEval(record: Omit<EvalRecord, "finishedAt">): EvalRecord;
  finishEval(id: string, finishedAt: string): void;
  /** Saves (or replaces) one item's result. */
  saveItem(evalId: string, result: ItemResult): void;
  listItems(evalId: string): ItemResult[];
  /** An evaluation by id or unique id prefix, or undefined. */
  findEval(idOrPrefix: string): EvalRecord | undefined;
  /** All evaluations, oldest first. */
  listEvals(): EvalRecord[];
  close(): void;
}
