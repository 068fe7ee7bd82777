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

/** The sandbox backend cannot run on this machine (e.g. `bwrap` missing). */
export class SandboxUnavailableError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("sandbox_unavailable", message, options);
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
