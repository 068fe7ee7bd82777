import { SuiteError, type ChatMessage, type EvalBucket, type ItemErrorCode, type ItemResult, type ItemScore, type LanguageModel, type QuestionSuite, type SuiteItem, type TaskItemsRequest } from "../../spec/index.js";
import { extractAnswer } from "../rollout/index.js";
import { isModelTimeout } from "./time-limited-model.js";

/** Version of {@link questionMessages}' prompt layout; stored with every evaluation. */
export const QUESTION_PROMPT_VERSION = "prompt-v1";

/**
 * The chat a question is asked in: one user message, the question, a blank line, then the
 * suite's own answer-format instruction (Reasoning Gym's default system prompt, which asks for
 * `<answer>…</answer>`). Instruction last and no system message, as the Solver's prompt: small
 * chat models (the embedded Gemma 3 270M) echo a leading system prompt instead of answering.
 */
export function questionMessages(question: string, instruction: string): ChatMessage[] {
  return [{ role: "user", content: `${question}\n\n${instruction}` }];
}

/** One task of a question suite in an evaluation plan. */
export interface PlannedTask {
  readonly name: string;
  readonly bucket: EvalBucket | null;
  /** Task parameters sent to the suite (`{}` = defaults). */
  readonly config: Readonly<Record<string, unknown>>;
}

/** Sampling of question answers. */
export interface QuestionSampling {
  readonly maxTokens: number;
  readonly temperature: number;
  /** Base sampling seed; item i of a task samples with `seed + i`. */
  readonly seed: number;
}

/**
 * Asks `model` one generated item and scores the reply with the suite's own scorer. Never
 * throws for the item's own failures: a model time-out (`model_timeout`), a failed request
 * (`model_failed`), a crashing scorer (`scorer_crashed`, `scorer_invalid`) are the result's
 * `error`, scored 0 and not won.
 *
 * @param model a model whose time limit raises {@link ModelTimeoutError} (see `timeLimitedModel`)
 */
export async function evaluateQuestion(
  suite: QuestionSuite,
  model: LanguageModel,
  item: { readonly suiteName: string; readonly task: PlannedTask; readonly request: TaskItemsRequest; readonly generated: SuiteItem; readonly instruction: string },
  sampling: QuestionSampling,
  clock: () => number = () => performance.now(),
): Promise<ItemResult> {
  const started = clock();
  const key = { suite: item.suiteName, task: item.task.name, bucket: item.task.bucket, index: item.generated.index, seed: item.request.seed };
  const base = { ...key, score: 0, won: false, actions: 1, invalidActions: 0, tokens: 0, response: "", answer: null };
  let text: string;
  let tokens = 0;
  try {
    const generation = await model.generate(questionMessages(item.generated.question, item.instruction), {
      maxTokens: sampling.maxTokens,
      temperature: sampling.temperature,
      seed: sampling.seed + item.generated.index,
    });
    text = generation.text;
    tokens = generation.tokens?.length ?? 0;
  } catch (error) {
    const code = isModelTimeout(error) ? "model_timeout" : "model_failed";
    return { ...base, seconds: (clock() - started) / 1000, error: { code, message: (error as Error).message } };
  }
  const answer = extractAnswer(text);
  const scored = await scoreAnswer(suite, item.request, item.generated.index, answer);
  const seconds = (clock() - started) / 1000;
  const common = { ...base, tokens, response: text, answer, invalidActions: answer === null ? 1 : 0, seconds };
  if (scored.kind === "error") return { ...common, error: { code: scored.code, message: scored.message } };
  return { ...common, score: scored.score, won: scored.score === 1, error: null };
}

/** The suite's score, a suite failure that concerns this item becoming an item error; `suite_unavailable` is rethrown. */
async function scoreAnswer(suite: QuestionSuite, request: TaskItemsRequest, index: number, answer: string | null): Promise<ItemScore> {
  try {
    return await suite.score(request, index, answer);
  } catch (error) {
    if (!(error instanceof SuiteError) || error.code === "suite_unavailable") throw error;
    const code: ItemErrorCode = error.code === "suite_protocol" ? "scorer_crashed" : error.code;
    return { kind: "error", code, message: error.message };
  }
}
