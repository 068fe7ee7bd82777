import type { z } from "zod";
import {
  canonicalJson,
  RemoteSandboxUnavailableError,
  ServeRequestError,
  type ActionRun,
  type EnvAction,
  type EnvProgram,
  type EnvSession,
  type SandboxOutcome,
  type StepResult,
} from "../../spec/index.js";
import { connectFrames, frameFailure } from "../../support/server-connection.js";
import type { WebSocketExchange } from "../../support/websocket-exchange.js";
import { SANDBOX_WORKER_PATH, WORKER_OUTCOME_SCHEMAS, type WorkerCall } from "./remote-wire.js";
import type { ServerPool } from "./server-pool.js";

/** How a remote session reaches its servers. */
export interface RemoteConnectionSettings {
  /** Bearer token for every server, or none. */
  readonly token?: string;
  /** Limit of a connect and its handshake, milliseconds. */
  readonly connectTimeoutMs: number;
  /** Ping interval; a server that misses a whole interval is taken for dead, milliseconds. */
  readonly heartbeatMs: number;
}

/** One connection to one server, holding the program open there. */
interface Link {
  readonly url: string;
  readonly connection: WebSocketExchange;
}

/** A call of the current episode that returned `ok`, as the caller saw it. */
type RecordedCall =
  | { readonly kind: "step"; readonly action: EnvAction; readonly result: StepResult }
  | { readonly kind: "oracle"; readonly observation: string; readonly action: EnvAction };

/** The current episode: enough to replay it on another server. */
interface EpisodeRecord {
  readonly seed: number;
  /** The level the episode was reset at (undefined: plain `reset(seed)`). */
  readonly level?: number;
  readonly initialObservation: string;
  readonly calls: RecordedCall[];
}

type OutcomeOf<C extends WorkerCall> = z.infer<(typeof WORKER_OUTCOME_SCHEMAS)[C]>;

/** A failure outcome (any call). */
type Failure = Extract<SandboxOutcome<never>, { readonly message: string }>;

/** What one exchange gave: the server's outcome, or a lost server (`markDown`: skip it for the cool-down). */
type Exchange<C extends WorkerCall> = { readonly kind: "answer"; readonly outcome: OutcomeOf<C> } | { readonly kind: "lost"; readonly reason: string; readonly markDown: boolean };

/** Server refusals that say the server cannot serve this session now (another server may). */
const SERVER_SIDE_PROBLEMS: ReadonlySet<string> = new Set(["capacity_reached", "rate_limited", "draining", "server_error", "session_expired"]);

/**
 * An {@link EnvSession} on a remote `envforge serve` (`/v1/sandbox`). It records the current
 * episode (seed and every call that returned `ok`, with its result); when its server dies
 * mid-episode (the connection drops, a ping goes unanswered, the server refuses the session),
 * it opens the program on the least loaded other server, replays the episode there (one
 * `run_actions` frame when the episode is steps only) and checks that the replay gives the
 * transcript the caller already saw, then retries the call: the caller sees one continuous
 * session and every result once. A replay that differs (a non-deterministic program) ends the
 * episode with `crash`. After a non-`ok` outcome, `step` and `oracleAction` return the same
 * failure until the next `reset`, as every backend does.
 *
 * @throws RemoteSandboxUnavailableError from any call when no server is usable (each named with its reason)
 */
export class RemoteSession implements EnvSession {
  private link: Link | null = null;
  private episode: EpisodeRecord | null = null;
  private failure: SandboxOutcome<never> | null = null;
  private closed = false;

  /**
   * @param onClose called once when the session is closed (the backend's bookkeeping)
   */
  constructor(
    private readonly program: EnvProgram,
    private readonly pool: ServerPool,
    private readonly settings: RemoteConnectionSettings,
    private readonly onClose: (session: RemoteSession) => void = () => undefined,
  ) {}

  /** URL of the server holding the session now, or null between servers. */
  get server(): string | null {
    return this.link?.url ?? null;
  }

  /**
   * Opens the program on the least loaded usable server (the next one when a server cannot be reached).
   * @returns the program's load outcome on the server (a syntax error is `crash`, as locally)
   * @throws RemoteSandboxUnavailableError when no server is usable
   */
  async load(): Promise<SandboxOutcome<void>> {
    const tried = new Map<string, string>();
    for (;;) {
      const linked = await this.relink(tried, false);
      if (linked === "lost") continue;
      return linked === null ? { kind: "ok", value: undefined } : linked;
    }
  }

  async reset(seed: number, level?: number): Promise<SandboxOutcome<string>> {
    this.episode = null;
    this.failure = null;
    const outcome = await this.perform("reset", { seed, ...levelField(level) }, false);
    if (outcome.kind === "ok") this.episode = { seed, ...levelField(level), initialObservation: outcome.value, calls: [] };
    else this.endEpisode(seed, outcome);
    return outcome;
  }

  async step(action: EnvAction): Promise<SandboxOutcome<StepResult>> {
    if (this.closed) return { kind: "protocol_violation", message: "session closed" };
    if (this.failure !== null) return this.failure;
    const outcome = await this.perform("step", { action }, true);
    if (outcome.kind === "ok") this.episode?.calls.push({ kind: "step", action, result: outcome.value });
    else if (this.episode !== null) this.failure = outcome;
    return outcome;
  }

  async runActions(seed: number, actions: readonly string[], level?: number): Promise<SandboxOutcome<ActionRun>> {
    this.episode = null;
    this.failure = null;
    const outcome = await this.perform("run_actions", { seed, ...levelField(level), actions }, false);
    if (outcome.kind === "ok") {
      const calls = outcome.value.steps.map((result, index): RecordedCall => ({ kind: "step", action: actions[index] as string, result }));
      this.episode = { seed, ...levelField(level), initialObservation: outcome.value.initialObservation, calls };
    } else {
      this.endEpisode(seed, outcome);
    }
    return outcome;
  }

  async oracleAction(observation: string): Promise<SandboxOutcome<EnvAction>> {
    if (this.closed) return { kind: "protocol_violation", message: "session closed" };
    if (this.failure !== null) return this.failure;
    const outcome = await this.perform("oracle_action", { observation }, true);
    if (outcome.kind === "ok") this.episode?.calls.push({ kind: "oracle", observation, action: outcome.value });
    else if (this.episode !== null) this.failure = outcome;
    return outcome;
  }

  /** Closes the session on its server and waits until the server has freed it (at most 5 s). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    const link = this.link;
    this.link = null;
    if (link === null) return;
    this.pool.release(link.url);
    await link.connection.close({ frame: JSON.stringify({ type: "close" }), peerCloseMs: 5000 });
  }

  /** The episode ended with `outcome` at its reset: later calls return it. */
  private endEpisode(seed: number, outcome: SandboxOutcome<never>): void {
    this.episode = { seed, initialObservation: "", calls: [] };
    this.failure = outcome;
  }

  /**
   * Runs one call on the session's server; when the server is lost, on another one (re-opened,
   * and with `replay` the current episode replayed first). Each server is tried at most once per call.
   */
  private async perform<C extends WorkerCall>(call: C, data: Record<string, unknown>, replay: boolean): Promise<OutcomeOf<C>> {
    const tried = new Map<string, string>();
    for (let attempt = 0; ; attempt += 1) {
      if (this.closed) return { kind: "protocol_violation", message: "session closed" } as OutcomeOf<C>;
      if (this.link === null) {
        const linked = await this.relink(tried, replay, attempt);
        if (linked === "lost") continue;
        if (linked !== null) return linked as OutcomeOf<C>;
      }
      const link = this.link as unknown as Link;
      const answer = await this.exchange(link, call, data);
      if (answer.kind === "answer") return answer.outcome;
      this.lose(link, answer.reason, answer.markDown, tried);
    }
  }

  /**
   * Opens the program on the least loaded server not yet tried, and replays the current episode
   * there when `replay` is set.
   * @returns null when linked; `lost` when that server failed (try the next); or the failure
   *   outcome of the load or the replay (the call's outcome)
   * @throws RemoteSandboxUnavailableError when every server was tried or is cooling down
   */
  private async relink(tried: Map<string, string>, replay: boolean, attempt = 0): Promise<null | "lost" | SandboxOutcome<never>> {
    const server = attempt > 2 * this.pool.list().length + 2 ? null : this.pool.choose(new Set(tried.keys()));
    if (server === null) throw new RemoteSandboxUnavailableError(this.pool.failures(tried));
    this.pool.acquire(server.url); // counted before the connect, so sessions opened together spread over the servers
    let connection: WebSocketExchange;
    try {
      connection = await connectFrames({ baseUrl: server.url, ...(this.settings.token === undefined ? {} : { token: this.settings.token }), timeoutMs: this.settings.connectTimeoutMs }, SANDBOX_WORKER_PATH, {
        heartbeatMs: this.settings.heartbeatMs,
      });
    } catch (error) {
      const reason = error instanceof ServeRequestError ? `${error.problem}: ${error.message}` : String(error);
      this.pool.release(server.url);
      tried.set(server.url, reason);
      this.pool.markDown(server.url, reason);
      return "lost";
    }
    const link: Link = { url: server.url, connection };
    this.link = link;
    if (this.closed) {
      this.drop(link);
      return { kind: "protocol_violation", message: "session closed" };
    }
    const program = { envSource: this.program.envSource, oracleSource: this.program.oracleSource, ...(this.program.rewardRange === undefined ? {} : { rewardRange: this.program.rewardRange }) };
    const opened = await this.exchange(link, "open", program);
    if (opened.kind === "lost") {
      this.lose(link, opened.reason, opened.markDown, tried);
      return "lost";
    }
    if (opened.outcome.kind !== "ok") {
      this.drop(link);
      return opened.outcome;
    }
    if (!replay || this.episode === null) return null;
    const replayed = await this.replay(link, this.episode);
    if (replayed === null) return null;
    if (replayed.kind === "lost") {
      this.lose(link, replayed.reason, replayed.markDown, tried);
      return "lost";
    }
    this.failure = replayed.outcome;
    return replayed.outcome;
  }

  /**
   * Replays `episode` on `link`: its reset and recorded calls, checking each result against the recorded one.
   * @returns null when the replay matched; the lost server; or the episode's failure (a failed or divergent replay)
   */
  private async replay(link: Link, episode: EpisodeRecord): Promise<null | { kind: "lost"; reason: string; markDown: boolean } | { kind: "failed"; outcome: SandboxOutcome<never> }> {
    const diverged = (at: string): { kind: "failed"; outcome: SandboxOutcome<never> } => ({
      kind: "failed",
      outcome: { kind: "crash", message: `replaying the episode (seed ${episode.seed}) on ${link.url} after its server failed gave a different ${at}: the program is not deterministic` },
    });
    const failed = (outcome: Failure) => ({ kind: "failed" as const, outcome: { ...outcome, message: `replaying the episode on ${link.url}: ${outcome.message}` } });
    const calls = episode.calls;
    const stepsOnly = calls.every((call, index) => call.kind === "step" && (index === calls.length - 1 || (!call.result.terminated && !call.result.truncated)));
    if (stepsOnly) {
      const actions = calls.map((call) => call.action);
      const answer = await this.exchange(link, "run_actions", { seed: episode.seed, ...levelField(episode.level), actions });
      if (answer.kind === "lost") return answer;
      if (answer.outcome.kind !== "ok") return failed(answer.outcome);
      if (answer.outcome.value.initialObservation !== episode.initialObservation) return diverged("first observation");
      const results = calls.map((call) => (call as Extract<RecordedCall, { kind: "step" }>).result);
      if (canonicalJson(answer.outcome.value.steps) !== canonicalJson(results)) return diverged("step result");
      return null;
    }
    const reset = await this.exchange(link, "reset", { seed: episode.seed, ...levelField(episode.level) });
    if (reset.kind === "lost") return reset;
    if (reset.outcome.kind !== "ok") return failed(reset.outcome);
    if (reset.outcome.value !== episode.initialObservation) return diverged("first observation");
    for (const [index, call] of calls.entries()) {
      if (call.kind === "step") {
        const answer = await this.exchange(link, "step", { action: call.action });
        if (answer.kind === "lost") return answer;
        if (answer.outcome.kind !== "ok") return failed(answer.outcome);
        if (canonicalJson(answer.outcome.value) !== canonicalJson(call.result)) return diverged(`result of call ${index + 1}`);
      } else {
        const answer = await this.exchange(link, "oracle_action", { observation: call.observation });
        if (answer.kind === "lost") return answer;
        if (answer.outcome.kind !== "ok") return failed(answer.outcome);
        if (answer.outcome.value !== call.action) return diverged(`oracle action at call ${index + 1}`);
      }
    }
    return null;
  }

  /** One request on `link` and its typed answer; never throws. */
  private async exchange<C extends WorkerCall | "open">(link: Link, call: C, data: Record<string, unknown>): Promise<Exchange<C>> {
    const frame = JSON.stringify({ type: call, data });
    let answer: { type: string; data: unknown };
    try {
      answer = await link.connection.exchange(frame, null);
    } catch (error) {
      const failure = frameFailure(link.connection, error);
      if (failure.problem === "frame_too_large") {
        this.drop(link); // the server closed the connection; the next reset opens a new one
        const refused: Failure = { kind: "protocol_violation", message: `the ${call} request of ${Buffer.byteLength(frame)} bytes exceeds the frame limit of ${link.url}` };
        return { kind: "answer", outcome: refused as OutcomeOf<C> };
      }
      return { kind: "lost", reason: `${failure.problem}: ${failure.message}`, markDown: failure.problem !== "session_expired" };
    }
    if (answer.type === "error") {
      const record = (typeof answer.data === "object" && answer.data !== null ? answer.data : {}) as { reason?: unknown; message?: unknown };
      const reason = typeof record.reason === "string" ? record.reason : "server_error";
      const message = typeof record.message === "string" ? record.message : "error frame";
      if (SERVER_SIDE_PROBLEMS.has(reason)) return { kind: "lost", reason: `${reason}: ${message}`, markDown: reason !== "session_expired" };
      const refused: Failure = { kind: "protocol_violation", message: `${link.url} refused the ${call} request: ${message}` };
      return { kind: "answer", outcome: refused as OutcomeOf<C> };
    }
    const parsed = answer.type === "outcome" ? WORKER_OUTCOME_SCHEMAS[call].safeParse(answer.data) : null;
    if (parsed === null || !parsed.success) return { kind: "lost", reason: `malformed answer to ${call} (not a sandbox outcome)`, markDown: true };
    return { kind: "answer", outcome: parsed.data as OutcomeOf<C> };
  }

  /** `link`'s server failed: forget the link, and skip the server for this call (and its cool-down when `markDown`). */
  private lose(link: Link, reason: string, markDown: boolean, tried: Map<string, string>): void {
    this.drop(link);
    if (!markDown) return;
    tried.set(link.url, reason);
    this.pool.markDown(link.url, reason);
  }

  /** Forgets `link` and cuts its connection. */
  private drop(link: Link): void {
    if (this.link !== link) return;
    this.link = null;
    this.pool.release(link.url);
    link.connection.terminate();
  }
}

/** The `level` key of a reset frame: present only for a levelled reset. */
function levelField(level: number | undefined): { level?: number } {
  return level === undefined ? {} : { level };
}
