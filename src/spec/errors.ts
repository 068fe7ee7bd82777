/**
 * Typed errors of envforge. Every error a caller may need to act on is an
 * {@link EnvforgeError} with a stable `code` and a `retryable` flag; retry logic
 * reads these fields and never parses messages.
 *
 * Expected failures of untrusted input (a broken environment, a malformed
 * completion) are not errors: they are {@link Verdict} values.
 */
export class EnvforgeError extends Error {
  /** Stable machine-readable code, e.g. `config_invalid`. */
  readonly code: string;
  /** Whether repeating the same call later may succeed. */
  readonly retryable: boolean;

  /**
   * @param code stable machine-readable code
   * @param message human-readable explanation, naming the offending input
   * @param options `retryable` (default false) and an optional `cause`
   */
  constructor(code: string, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** A configuration file or option is invalid; the message names the key and the allowed values. */
export class ConfigError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("config_invalid", message, options);
  }
}

/**
 * A level outside an environment's declared levels was asked for (CLI exit 2,
 * HTTP 422). The message names the environment and the range.
 */
export class LevelOutOfRangeError extends EnvforgeError {
  /** The environment's name. */
  readonly environment: string;
  /** The level asked for. */
  readonly level: number;
  /** Number of declared levels (valid levels are 0..count−1). */
  readonly count: number;

  constructor(environment: string, level: number, count: number) {
    super("level_out_of_range", `level ${level} is outside ${environment}'s levels: ${count === 1 ? "it declares one level, 0" : `0..${count - 1}`}`);
    this.environment = environment;
    this.level = level;
    this.count = count;
  }
}

/** An environment package (folder or JSON document) does not match the package format. */
export class PackageFormatError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("package_invalid", message, options);
  }
}

/** A language model could not be reached or loaded (server down, model file missing). */
export class ModelUnavailableError extends EnvforgeError {
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("model_unavailable", message, options);
  }
}

/** A language model request failed after it was accepted (bad response, aborted). */
export class ModelRequestError extends EnvforgeError {
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("model_request_failed", message, options);
  }
}

/** The sandbox backend cannot run on this machine (e.g. `bwrap` missing), or cannot reach any of its servers. */
export class SandboxUnavailableError extends EnvforgeError {
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("sandbox_unavailable", message, options);
  }
}

/** Why one server of the `remote` sandbox backend could not be used. */
export interface SandboxServerFailure {
  /** The server's URL, as configured. */
  readonly url: string;
  /** What went wrong there (refused, unreachable, dropped, cooling down after a failure). */
  readonly reason: string;
}

/**
 * The `remote` sandbox backend found no usable server: every configured server is unreachable,
 * refused the session, or is cooling down after a recent failure. `servers` names each with its
 * reason. Retryable: servers come back.
 */
export class RemoteSandboxUnavailableError extends SandboxUnavailableError {
  readonly servers: readonly SandboxServerFailure[];

  constructor(servers: readonly SandboxServerFailure[], options: { cause?: unknown } = {}) {
    super(
      `no sandbox server is usable: ${servers.map((server) => `${server.url} (${server.reason})`).join("; ")}. ` +
        "Start envforge serve at these URLs (or fix sandbox.remote.urls, or the token in sandbox.remote.tokenEnv); a failed server is tried again after its cool-down (sandbox.remote.cooldownMs)",
      { retryable: true, ...options },
    );
    this.servers = servers;
  }
}

/** The run store could not be opened or written. */
export class StoreError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("store_failed", message, options);
  }
}

/** A corpus file or folder could not be read or holds malformed documents. */
export class CorpusError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("corpus_invalid", message, options);
  }
}

/** A trainer backend could not be reached or started (connection refused, timeout, process exited). */
export class TrainerUnavailableError extends EnvforgeError {
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("trainer_unavailable", message, options);
  }
}

/**
 * A trainer backend answered a request with an error. `status` is the HTTP status
 * (0 when none); `category` is the backend's own classification (`user` for a bad
 * request, `server` for a fault of the backend) when it gives one.
 */
export class TrainerRequestError extends EnvforgeError {
  readonly status: number;
  readonly category: string | null;

  constructor(message: string, options: { status: number; category?: string | null; retryable?: boolean; cause?: unknown }) {
    super("trainer_request_failed", message, options);
    this.status = options.status;
    this.category = options.category ?? null;
  }
}

/** Why a LoRA adapter file was refused; retry logic and operators read this, never the message. */
export type LoraAdapterProblem = "missing" | "truncated" | "not_lora" | "base_mismatch" | "refused";

/**
 * A LoRA adapter file cannot be loaded into a sampling engine: it is `missing`,
 * `truncated` (shorter than its tensors need), `not_lora` (not a GGUF LoRA adapter, or a
 * peft folder whose config is not a LoRA's), or made for another base model
 * (`base_mismatch`: another architecture or tensor shapes llama.cpp would refuse); or an
 * inference server refused to load it for a reason it states (`refused`: vLLM or SGLang
 * answering its load route with an error, e.g. a rank above its `--max-lora-rank`, modules
 * it cannot adapt, another base model). The message names the file and the cause.
 */
export class LoraAdapterError extends EnvforgeError {
  readonly problem: LoraAdapterProblem;

  constructor(problem: LoraAdapterProblem, message: string, options: { cause?: unknown } = {}) {
    super("lora_adapter_invalid", message, options);
    this.problem = problem;
  }
}

/**
 * Why the environment server refused a request (`envforge serve`, its clients). Servers map
 * each to one HTTP status and one OpenEnv WebSocket error code in one place; clients rebuild
 * the error from the `reason` field of the server's answer.
 * - `invalid_json`: the body or frame is not JSON; `invalid_request`: it does not match the
 *   route's schema (`unknown_message_type`: a WebSocket frame with an unknown `type`);
 * - `unknown_environment` / `ambiguous_environment`: no served environment (or several) has
 *   that id or name; `not_found`: no such route or session;
 * - `step_before_reset`: a step or state before the session's first reset;
 *   `episode_over`: a step after the episode ended (reset starts the next one);
 * - `action_too_large`, `body_too_large`, `frame_too_large`: over the configured byte limits;
 * - `capacity_reached`: every session slot is taken; `rate_limited`: the caller's request rate
 *   is over its limit; `draining`: the server is shutting down and takes no new episodes;
 * - `unauthorized`: a missing or wrong bearer token; `not_supported`: the environment cannot
 *   do that (e.g. `/v1/verify` on a multi-turn environment); `environment_failed`: the
 *   environment program failed to load in the sandbox (a broken package, not the caller's fault);
 * - `session_expired`: the session was closed for idleness; `server_error`: a fault of the server.
 */
export type ServeProblem =
  | "invalid_json"
  | "invalid_request"
  | "method_not_allowed"
  | "unknown_message_type"
  | "unknown_environment"
  | "ambiguous_environment"
  | "not_found"
  | "step_before_reset"
  | "episode_over"
  | "action_too_large"
  | "body_too_large"
  | "frame_too_large"
  | "capacity_reached"
  | "rate_limited"
  | "draining"
  | "unauthorized"
  | "not_supported"
  | "environment_failed"
  | "session_expired"
  | "server_error";

const SERVE_PROBLEM_NAMES: Readonly<Record<ServeProblem, true>> = {
  invalid_json: true,
  invalid_request: true,
  method_not_allowed: true,
  unknown_message_type: true,
  unknown_environment: true,
  ambiguous_environment: true,
  not_found: true,
  step_before_reset: true,
  episode_over: true,
  action_too_large: true,
  body_too_large: true,
  frame_too_large: true,
  capacity_reached: true,
  rate_limited: true,
  draining: true,
  unauthorized: true,
  not_supported: true,
  environment_failed: true,
  session_expired: true,
  server_error: true,
};

/** Whether `value` names a {@link ServeProblem} (for clients reading an answer's `reason`). */
export function isServeProblem(value: unknown): value is ServeProblem {
  return typeof value === "string" && Object.hasOwn(SERVE_PROBLEM_NAMES, value);
}

const RETRYABLE_PROBLEMS: ReadonlySet<ServeProblem> = new Set(["capacity_reached", "rate_limited", "draining", "server_error"]);

/**
 * A request to the environment server was refused ({@link ServeProblem} says why). Thrown by
 * the server's routes (and turned into a typed answer there) and by the TypeScript client when
 * the server answers with an error. `retryable` is true for `capacity_reached`, `rate_limited`,
 * `draining` and `server_error`; `retryAfterMs` is set when the server said how long to wait.
 */
export class ServeRequestError extends EnvforgeError {
  readonly problem: ServeProblem;
  /** Milliseconds to wait before retrying, when known (rate limits). */
  readonly retryAfterMs: number | null;
  /** The methods the path allows (`method_not_allowed`: the HTTP `Allow` header); empty otherwise. */
  readonly allow: readonly string[];

  constructor(problem: ServeProblem, message: string, options: { retryAfterMs?: number | null; allow?: readonly string[]; cause?: unknown } = {}) {
    super("serve_request_refused", message, { retryable: RETRYABLE_PROBLEMS.has(problem), cause: options.cause });
    this.problem = problem;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.allow = options.allow ?? [];
  }
}

/**
 * The typed error of an environment server's answer body or error frame: its `reason` (a
 * {@link ServeProblem}, else `fallbackProblem`), `detail` or `message` (else `fallback`), and `retry_after_ms`.
 */
export function serveRefusal(body: unknown, fallback: string, fallbackProblem: ServeProblem): ServeRequestError {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const problem = isServeProblem(record.reason) ? record.reason : fallbackProblem;
  const message = typeof record.detail === "string" ? record.detail : typeof record.message === "string" ? record.message : fallback;
  const retryAfterMs = typeof record.retry_after_ms === "number" ? record.retry_after_ms : null;
  return new ServeRequestError(problem, message, { retryAfterMs });
}
