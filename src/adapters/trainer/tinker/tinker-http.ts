import { TrainerRequestError, TrainerUnavailableError } from "../../../spec/index.js";

/** Options of {@link TinkerHttp}. */
export interface TinkerHttpOptions {
  /** Server root, e.g. `http://127.0.0.1:8765` (routes live under `/api/v1`). */
  readonly baseUrl: string;
  /** API key sent as `X-API-Key` (and as a bearer token); none when undefined. */
  readonly apiKey?: string;
  /** Timeout of one HTTP request, milliseconds. @default 60000 */
  readonly requestTimeoutMs?: number;
  /** How long to poll one future before giving up, milliseconds. @default 1800000 */
  readonly futureTimeoutMs?: number;
  /** Retries of a request that failed with a retryable error. @default 3 */
  readonly maxRetries?: number;
  /** First retry delay, milliseconds; doubles per retry. @default 500 */
  readonly retryDelayMs?: number;
  /** Injected for tests. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Injected for tests. @default setTimeout-based sleep */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Injected for tests. @default Date.now */
  readonly now?: () => number;
}

/** HTTP statuses that say "the same request may succeed later". */
const RETRYABLE_STATUSES = new Set([408, 425, 429, 502, 503, 504]);

/**
 * The HTTP layer of the Tinker API: JSON requests with an API key and timeouts,
 * retries of retryable failures only (network errors, 408/425/429/502/503/504), and
 * futures — operations answer `{request_id}` at once and `retrieve_future` is polled
 * until the result is there (408 or `{"type":"try_again"}` means "not yet").
 *
 * Errors: {@link TrainerUnavailableError} (retryable) when the server cannot be
 * reached; {@link TrainerRequestError} with the HTTP status and the backend's
 * `category` otherwise, retryable exactly for the statuses above.
 */
export class TinkerHttp {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: TinkerHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  /** GET `path`, with retries. */
  get<T>(path: string): Promise<T> {
    return this.withRetries(() => this.once<T>("GET", path, undefined));
  }

  /** POST `body` to `path`, with retries. */
  post<T>(path: string, body: unknown): Promise<T> {
    return this.withRetries(() => this.once<T>("POST", path, body));
  }

  /**
   * POSTs an operation and polls its future until it is done.
   * @throws TrainerRequestError when the operation failed, or with status 408 when `futureTimeoutMs` passed
   */
  async postFuture<T>(path: string, body: unknown): Promise<T> {
    // a submission that timed out may have been accepted: resubmitting could apply it twice, so it is not retried
    const submitted = await this.withRetries(() => this.once<{ request_id?: unknown }>("POST", path, body), { retryTimeouts: false });
    if (typeof submitted?.request_id !== "string" && typeof submitted?.request_id !== "number") {
      throw new TrainerRequestError(`${path} answered without a request_id`, { status: 200 });
    }
    return this.retrieve<T>(String(submitted.request_id));
  }

  /** Polls `retrieve_future` for `requestId` until it has a result. */
  async retrieve<T>(requestId: string): Promise<T> {
    const deadline = this.now() + (this.options.futureTimeoutMs ?? 1_800_000);
    const maxRetries = this.options.maxRetries ?? 3;
    let failures = 0;
    for (;;) {
      let result: unknown;
      try {
        result = await this.once("POST", "/api/v1/retrieve_future", { request_id: requestId });
        failures = 0;
      } catch (error) {
        // polling is idempotent: a long poll the server held past our request timeout, or a 408, just polls again;
        // other retryable failures are retried up to maxRetries times in a row
        const longPoll = error instanceof TrainerUnavailableError && (error.cause as Error | undefined)?.name === "TimeoutError";
        const notYet = error instanceof TrainerRequestError && error.status === 408;
        if (!longPoll && !notYet) {
          const retryable = (error instanceof TrainerUnavailableError || error instanceof TrainerRequestError) && error.retryable;
          failures += 1;
          if (!retryable || failures > maxRetries) throw error;
          await this.sleep((this.options.retryDelayMs ?? 500) * 2 ** (failures - 1));
        }
        result = { type: "try_again" };
      }
      if (!isTryAgain(result)) return result as T;
      if (this.now() > deadline) {
        throw new TrainerRequestError(`future ${requestId} not done after ${this.options.futureTimeoutMs ?? 1_800_000} ms`, {
          status: 408,
          retryable: true,
        });
      }
      await this.sleep(200);
    }
  }

  private async withRetries<T>(request: () => Promise<T>, mode: { retryTimeouts?: boolean } = {}): Promise<T> {
    const maxRetries = this.options.maxRetries ?? 3;
    let delay = this.options.retryDelayMs ?? 500;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await request();
      } catch (error) {
        const timedOut = error instanceof TrainerUnavailableError && (error.cause as Error | undefined)?.name === "TimeoutError";
        const retryable = (error instanceof TrainerUnavailableError || error instanceof TrainerRequestError) && error.retryable;
        if (!retryable || (timedOut && mode.retryTimeouts === false) || attempt >= maxRetries) {
          throw error;
        }
        await this.sleep(delay);
        delay *= 2;
      }
    }
  }

  private async once<T>(method: "GET" | "POST", path: string, body: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.options.apiKey) {
      headers["x-api-key"] = this.options.apiKey;
      headers.authorization = `Bearer ${this.options.apiKey}`;
    }
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 60_000),
      });
    } catch (error) {
      throw new TrainerUnavailableError(`cannot reach the trainer at ${this.baseUrl}${path}: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const detail = errorDetail(parsed) ?? text.slice(0, 300);
      const category = isRecord(parsed) && typeof parsed.category === "string" ? parsed.category : null;
      throw new TrainerRequestError(`${method} ${path} failed with HTTP ${response.status}: ${detail}`, {
        status: response.status,
        category,
        retryable: RETRYABLE_STATUSES.has(response.status),
      });
    }
    if (parsed === undefined) {
      throw new TrainerRequestError(`${method} ${path} answered HTTP ${response.status} without a JSON body`, { status: response.status });
    }
    return parsed as T;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTryAgain(value: unknown): boolean {
  return isRecord(value) && value.type === "try_again";
}

function errorDetail(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ["error", "detail", "message"]) {
    const value = body[key];
    if (typeof value === "string") return value;
    if (value !== undefined) return JSON.stringify(value);
  }
  return undefined;
}
