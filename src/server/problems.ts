import { LevelOutOfRangeError, ServeRequestError, type ServeProblem } from "../spec/index.js";
import type { ErrorData, OpenEnvErrorCode } from "./openenv-wire.js";

/**
 * The one place a {@link ServeProblem} becomes an HTTP status and an OpenEnv WebSocket error
 * code. Client mistakes are 4xx / `VALIDATION_ERROR` or `SESSION_ERROR`; capacity, rate and drain
 * refusals are 429/503 / `CAPACITY_REACHED`; a broken environment program is `FACTORY_ERROR`.
 * A level outside an environment's levels ({@link LevelOutOfRangeError}) is `invalid_request`
 * (422 / `VALIDATION_ERROR`); see {@link asServeError}.
 */
export const PROBLEM_ANSWERS: Readonly<Record<ServeProblem, { readonly status: number; readonly code: OpenEnvErrorCode }>> = {
  invalid_json: { status: 400, code: "INVALID_JSON" },
  invalid_request: { status: 422, code: "VALIDATION_ERROR" },
  method_not_allowed: { status: 405, code: "VALIDATION_ERROR" },
  unknown_message_type: { status: 400, code: "UNKNOWN_TYPE" },
  unknown_environment: { status: 404, code: "VALIDATION_ERROR" },
  ambiguous_environment: { status: 409, code: "VALIDATION_ERROR" },
  not_found: { status: 404, code: "SESSION_ERROR" },
  step_before_reset: { status: 409, code: "SESSION_ERROR" },
  episode_over: { status: 409, code: "SESSION_ERROR" },
  action_too_large: { status: 422, code: "VALIDATION_ERROR" },
  body_too_large: { status: 413, code: "VALIDATION_ERROR" },
  frame_too_large: { status: 413, code: "VALIDATION_ERROR" },
  capacity_reached: { status: 503, code: "CAPACITY_REACHED" },
  rate_limited: { status: 429, code: "CAPACITY_REACHED" },
  draining: { status: 503, code: "CAPACITY_REACHED" },
  unauthorized: { status: 401, code: "SESSION_ERROR" },
  not_supported: { status: 422, code: "VALIDATION_ERROR" },
  environment_failed: { status: 502, code: "FACTORY_ERROR" },
  session_expired: { status: 410, code: "SESSION_ERROR" },
  server_error: { status: 500, code: "EXECUTION_ERROR" },
};

/**
 * Every thrown value as a {@link ServeRequestError}: a {@link LevelOutOfRangeError} is the
 * client's `invalid_request` with its message (which names the environment's range); anything
 * else is a `server_error` (the message is kept generic).
 */
export function asServeError(error: unknown): ServeRequestError {
  if (error instanceof ServeRequestError) return error;
  if (error instanceof LevelOutOfRangeError) return new ServeRequestError("invalid_request", error.message, { cause: error });
  return new ServeRequestError("server_error", "the server failed to handle the request", { cause: error });
}

/** `data` of the OpenEnv error frame for `error`. */
export function errorData(error: ServeRequestError): ErrorData {
  return {
    message: error.message,
    code: PROBLEM_ANSWERS[error.problem].code,
    reason: error.problem,
    ...(error.retryAfterMs === null ? {} : { retry_after_ms: error.retryAfterMs }),
  };
}

/**
 * The HTTP answer for `error`: its status and a FastAPI-style body `{ detail, code, reason }`
 * (`retry_after_ms` too for rate limits), with `Retry-After` (seconds) when known and
 * `Allow` for a method the path does not take.
 */
export function errorAnswer(error: ServeRequestError): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const { status, code } = PROBLEM_ANSWERS[error.problem];
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== null) headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
  if (error.problem === "unauthorized") headers["www-authenticate"] = 'Bearer realm="envforge"';
  if (error.allow.length > 0) headers.allow = error.allow.join(", ");
  return {
    status,
    headers,
    body: { detail: error.message, code, reason: error.problem, ...(error.retryAfterMs === null ? {} : { retry_after_ms: error.retryAfterMs }) },
  };
}

/** Whether `value` names a {@link ServeProblem} (for clients reading `reason`). */
export { isServeProblem } from "../spec/index.js";
