import { ServeRequestError, serveRefusal, type EnvPackageDocument, type ServeProblem } from "../spec/index.js";
import type { PlayedEpisode, Verification } from "./batch-episodes.js";
import type { EnvironmentFilter } from "./catalog.js";
import type { EnvironmentSummary } from "./envforge-routes.js";
import type { State, StepPayload } from "./openenv-wire.js";
import { connectFrames, frameFailure } from "../support/server-connection.js";
import type { WebSocketExchange } from "../support/websocket-exchange.js";

/** Options of the clients. */
export interface ServerClientOptions {
  /** Server root, e.g. `http://127.0.0.1:8000`. */
  readonly baseUrl: string;
  /** Bearer token, when the server requires one. @default none */
  readonly token?: string;
  /** Limit of one request (HTTP) or one answer (WebSocket), milliseconds. @default 60000 */
  readonly timeoutMs?: number;
}

const refusalFrom = serveRefusal;

/**
 * Typed client of an envforge environment server's HTTP routes, and the door to its WebSocket
 * sessions ({@link connect}). Every refusal of the server is thrown as a
 * {@link ServeRequestError} with the server's `problem`; an unreachable server is a
 * `server_error` (retryable).
 */
export class EnvironmentServerClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: ServerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** `GET /health`: `healthy`, or `degraded` while the server drains. */
  async health(): Promise<"healthy" | "degraded"> {
    const { response, parsed } = await this.send("GET", "/health");
    const status = (parsed as { status?: unknown } | null)?.status;
    if (status === "healthy" || status === "degraded") return status;
    throw refusalFrom(parsed, `HTTP ${response.status} from GET /health`, "server_error");
  }

  /** `GET /v1/envs` with filters and paging. */
  async listEnvironments(filter: EnvironmentFilter = {}): Promise<{ total: number; environments: EnvironmentSummary[] }> {
    const query = new URLSearchParams(Object.entries(filter).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])));
    const suffix = query.size > 0 ? `?${query}` : "";
    return (await this.request("GET", `/v1/envs${suffix}`)) as { total: number; environments: EnvironmentSummary[] };
  }

  /** `GET /v1/envs/{id}`: the summary and the package document (manifest, `env.py`, `oracle.py`). */
  async environment(reference: string): Promise<EnvironmentSummary & { package: EnvPackageDocument }> {
    return (await this.request("GET", `/v1/envs/${encodeURIComponent(reference)}`)) as EnvironmentSummary & { package: EnvPackageDocument };
  }

  /** `POST /v1/episodes`: whole episodes from action lists, in order (`level` default 0). */
  async playEpisodes(episodes: readonly { env: string; seed: number; level?: number; actions: readonly string[] }[]): Promise<PlayedEpisode[]> {
    return ((await this.request("POST", "/v1/episodes", { episodes })) as { episodes: PlayedEpisode[] }).episodes;
  }

  /** `POST /v1/verify`: scores of answers to single-turn instances, in order (`level` default 0). */
  async verify(answers: readonly { env: string; seed: number; level?: number; answer: string }[]): Promise<Verification[]> {
    return ((await this.request("POST", "/v1/verify", { answers })) as { results: Verification[] }).results;
  }

  /** `GET /v1/frontier`: the frontier scheduler's current set (`scheduled` false without lineages). */
  async frontier(): Promise<{ scheduled: boolean; environments: EnvironmentSummary[] }> {
    return (await this.request("GET", "/v1/frontier")) as { scheduled: boolean; environments: EnvironmentSummary[] };
  }

  /** `GET /v1/stats`: sessions held (by transport: `websocket`, `http`, `sandbox`), capacity, draining. */
  async stats(): Promise<{ sessions: number; websocket: number; http: number; mcp: number; sandbox: number; capacity: number; draining: boolean; environments: number }> {
    return (await this.request("GET", "/v1/stats")) as { sessions: number; websocket: number; http: number; mcp: number; sandbox: number; capacity: number; draining: boolean; environments: number };
  }

  /** Opens an OpenEnv WebSocket session (`/ws`). */
  connect(): Promise<OpenEnvSessionClient> {
    return OpenEnvSessionClient.connect(this.options);
  }

  private async request(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const { response, parsed } = await this.send(method, path, body);
    if (!response.ok) {
      const fallback: ServeProblem = response.status === 401 ? "unauthorized" : response.status === 404 ? "not_found" : response.status >= 500 ? "server_error" : "invalid_request";
      throw refusalFrom(parsed, `HTTP ${response.status} from ${method} ${path}`, fallback);
    }
    return parsed;
  }

  private async send(method: "GET" | "POST", path: string, body?: unknown): Promise<{ response: Response; parsed: unknown }> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...(this.options.token === undefined ? {} : { authorization: `Bearer ${this.options.token}` }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ServeRequestError("server_error", `cannot reach ${this.baseUrl}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { response, parsed };
  }
}

/**
 * One OpenEnv WebSocket session, as `openenv-core`'s `EnvClient` drives it: `reset`, `step`,
 * `state` and `close` frames, answered in order. Calls are queued (the protocol has no request
 * ids). An error frame is thrown as a {@link ServeRequestError}; a dropped connection as
 * `server_error` (`frame_too_large` when the server closed it for an oversize frame).
 */
export class OpenEnvSessionClient {
  private constructor(
    private readonly connection: WebSocketExchange,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Connects to `/ws`.
   * @throws ServeRequestError the server's refusal of the handshake (`unauthorized`, `capacity_reached`, `rate_limited`, `draining`), or `server_error` when unreachable
   */
  static async connect(options: ServerClientOptions): Promise<OpenEnvSessionClient> {
    const connection = await connectFrames(options, "/ws");
    return new OpenEnvSessionClient(connection, options.timeoutMs ?? 60_000);
  }

  /** Starts an episode of `env` (id or name; optional on a one-environment server) at `seed` (random when absent) and `level` (0 when absent). */
  async reset(options: { env?: string; seed?: number; level?: number; episodeId?: string } = {}): Promise<StepPayload> {
    const data = {
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.level === undefined ? {} : { level: options.level }),
      ...(options.episodeId === undefined ? {} : { episode_id: options.episodeId }),
    };
    return (await this.call({ type: "reset", data }, "observation")) as StepPayload;
  }

  /** Plays one action (the agent's text reply). */
  async step(message: string): Promise<StepPayload> {
    return (await this.call({ type: "step", data: { message } }, "observation")) as StepPayload;
  }

  /** The session's state. */
  async state(): Promise<State> {
    return (await this.call({ type: "state" }, "state")) as State;
  }

  /** Sends `close` and closes the connection. Idempotent. */
  async close(): Promise<void> {
    await this.connection.close({ frame: JSON.stringify({ type: "close" }) });
  }

  /** Sends one raw frame and returns the answer (for protocol tests: anything, even malformed text). */
  async raw(frame: string): Promise<{ type: string; data: unknown }> {
    const unsolicited = this.connection.unsolicited;
    if (unsolicited?.type === "error") throw refusalFrom(unsolicited.data, "error frame", "server_error");
    try {
      return await this.connection.exchange(frame, this.timeoutMs);
    } catch (error) {
      throw frameFailure(this.connection, error);
    }
  }

  private async call(frame: unknown, expected: string): Promise<unknown> {
    const answer = await this.raw(JSON.stringify(frame));
    if (answer.type === "error") throw refusalFrom(answer.data, "error frame", "server_error");
    if (answer.type !== expected) throw new ServeRequestError("server_error", `expected a ${expected} frame, got ${answer.type}`);
    return answer.data;
  }
}
