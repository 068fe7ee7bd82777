import { errorAnswer } from "../server/problems.js";
import { ServeRequestError } from "../spec/index.js";
import { StoreProblemError, type StoreProblem } from "./store-problem.js";

/** HTTP status of each store problem: the page shows the body's `detail` for that run. */
export const STORE_PROBLEM_STATUS: Readonly<Record<StoreProblem, number>> = {
  missing: 404,
  unreadable: 422,
  corrupt: 422,
  schema: 422,
  locked: 503,
};

/**
 * The one place a thrown value becomes the dashboard's HTTP answer: a {@link StoreProblemError}
 * is `{ detail, reason: "store_<problem>" }` with its status (`retry-after: 1` when locked), a
 * `ServeRequestError` the environment server's answer, anything else a generic `server_error`.
 */
export function dashboardErrorAnswer(error: unknown): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  if (error instanceof StoreProblemError) {
    return {
      status: STORE_PROBLEM_STATUS[error.problem],
      body: { detail: error.message, reason: `store_${error.problem}` },
      headers: error.problem === "locked" ? { "retry-after": "1" } : {},
    };
  }
  const refusal = error instanceof ServeRequestError ? error : new ServeRequestError("server_error", "the dashboard failed to handle the request", { cause: error });
  return errorAnswer(refusal);
}
