import type { RawData, WebSocket } from "ws";
import { WORKER_REQUEST_TYPES, WorkerRequestSchema, type WorkerRequest } from "../adapters/sandbox/index.js";
import { ServeRequestError, type EnvSession, type Sandbox, type SandboxOutcome } from "../spec/index.js";
import { asServeError, errorData } from "./problems.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { HeldSession, SessionRegistry } from "./session-registry.js";
import { parseRequest } from "./validation.js";
import { CLOSE_CODES } from "./websocket-sessions.js";

/** What a sandbox-worker connection needs from the server. */
export interface SandboxWorkerParts {
  readonly registry: SessionRegistry;
  readonly limiter: RateLimiter;
  /** The server's sandbox: every program runs in its jails, never in the server's process. */
  readonly sandbox: Sandbox;
  readonly newId: () => string;
  /** Bytes queued for a client that does not read before it is dropped. */
  readonly maxBufferedBytes: number;
  /** Frames accepted before earlier ones are answered. */
  readonly maxQueuedFrames: number;
  /** Told about faults of the server itself (never about client mistakes). */
  readonly log: (line: string) => void;
}

/**
 * One sandbox-worker session: the {@link EnvSession} of one program sent inline, opened in the
 * server's sandbox by the connection's `open` frame. Requests run one at a time, in order.
 */
export class SandboxWorkerSession implements HeldSession {
  private session: EnvSession | null = null;
  private opening = false;
  private underWay = false;
  private closed = false;
  private pending = 0;

  constructor(
    readonly id: string,
    private readonly sandbox: Sandbox,
  ) {}

  /** Requests running. */
  get pendingRequests(): number {
    return this.pending;
  }

  /** No request runs and no episode is under way (a reset without its end yet). */
  get idle(): boolean {
    return this.pending === 0 && !this.underWay;
  }

  /**
   * Answers one request with the sandbox's outcome.
   * @throws ServeRequestError `invalid_request` for a second `open`, or any call before `open`; `session_expired` once closed
   */
  async answer(request: Exclude<WorkerRequest, { type: "close" }>): Promise<SandboxOutcome<unknown>> {
    if (this.closed) throw new ServeRequestError("session_expired", "the session is closed");
    this.pending += 1;
    try {
      if (request.type === "open") return await this.open(request.data);
      const session = this.session;
      if (session === null) throw new ServeRequestError("invalid_request", `${request.type} before open: the first frame of a sandbox session opens its program`);
      switch (request.type) {
        case "reset":
          return this.track(await session.reset(request.data.seed), (observation) => observation !== null);
        case "step":
          return this.track(await session.step(request.data.action), (step) => !step.terminated && !step.truncated);
        case "run_actions": {
          if (session.runActions === undefined) throw new ServeRequestError("not_supported", "this server's sandbox backend has no runActions");
          const outcome = await session.runActions(request.data.seed, request.data.actions);
          return this.track(outcome, (run) => {
            const last = run.steps.at(-1);
            return last === undefined || (!last.terminated && !last.truncated);
          });
        }
        case "oracle_action":
          return await session.oracleAction(request.data.observation);
      }
    } finally {
      this.pending -= 1;
    }
  }

  /** Ends the session and its episode process. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.underWay = false;
    const session = this.session;
    this.session = null;
    await session?.close();
  }

  private async open(program: Extract<WorkerRequest, { type: "open" }>["data"]): Promise<SandboxOutcome<null>> {
    if (this.session !== null || this.opening) throw new ServeRequestError("invalid_request", "this sandbox session has a program already: open a new connection for another");
    this.opening = true;
    try {
      const opened = await this.sandbox.open({
        envSource: program.envSource,
        oracleSource: program.oracleSource,
        ...(program.rewardRange === undefined ? {} : { rewardRange: program.rewardRange }),
      });
      if (opened.kind !== "ok") return opened;
      if (this.closed) {
        await opened.value.close();
        throw new ServeRequestError("session_expired", "the session is closed");
      }
      this.session = opened.value;
      return { kind: "ok", value: null };
    } finally {
      this.opening = false;
    }
  }

  /** Notes whether an episode is under way after `outcome` (for the drain). */
  private track<T>(outcome: SandboxOutcome<T>, goesOn: (value: T) => boolean): SandboxOutcome<T> {
    this.underWay = outcome.kind === "ok" && goesOn(outcome.value);
    return outcome;
  }
}

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

/** The request in one frame. @throws ServeRequestError `invalid_json`, `unknown_message_type`, `invalid_request` */
function parseFrame(raw: string): WorkerRequest {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch (error) {
    throw new ServeRequestError("invalid_json", `Invalid JSON: ${(error as Error).message}`);
  }
  const type = typeof message === "object" && message !== null ? (message as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !WORKER_REQUEST_TYPES.has(type)) {
    throw new ServeRequestError("unknown_message_type", `Unknown message type: ${String(type ?? "").slice(0, 100)} (open, reset, step, run_actions, oracle_action, close)`);
  }
  return parseRequest(WorkerRequestSchema, message, `${type} message`);
}

/**
 * Serves one sandbox-worker connection (`/v1/sandbox`; protocol in `remote-wire.ts`): a session
 * is held in the server's session slots at connect (a full or draining server answers an error
 * frame and closes with 1013), then every frame is answered in order. The program runs in the
 * server's jails with the server's limits, as every served episode does. `close`, or the
 * connection closing, closes the session and frees its episode process; the server closes the
 * connection only after that, so a client that waits for the close knows nothing is left running.
 *
 * @param key the rate-limit key of the connection (its token, or its address)
 */
export function serveSandboxWorker(socket: WebSocket, key: string, parts: SandboxWorkerParts): void {
  const id = parts.newId();
  const send = (frame: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(frame));
    if (socket.bufferedAmount > parts.maxBufferedBytes) socket.terminate();
  };
  const refuse = (error: ServeRequestError) => send({ type: "error", data: errorData(error) });
  socket.on("error", () => undefined);

  let session: SandboxWorkerSession;
  try {
    session = parts.registry.hold(
      id,
      () => new SandboxWorkerSession(id, parts.sandbox),
      () => {
        refuse(new ServeRequestError("session_expired", "session closed after being idle for longer than the idle timeout"));
        socket.close(CLOSE_CODES.normal, "idle timeout");
      },
    );
  } catch (error) {
    refuse(asServeError(error));
    socket.close(CLOSE_CODES.tryAgainLater, "not accepted");
    return;
  }

  let chain: Promise<void> = Promise.resolve();
  let queued = 0;
  socket.on("message", (data: RawData) => {
    const decision = parts.limiter.take(key);
    if (!decision.allowed) {
      refuse(new ServeRequestError("rate_limited", "request rate over the limit", { retryAfterMs: decision.retryAfterMs }));
      return;
    }
    if (queued >= parts.maxQueuedFrames) {
      refuse(new ServeRequestError("rate_limited", `more than ${parts.maxQueuedFrames} frames waiting for an answer`, { retryAfterMs: 100 }));
      return;
    }
    parts.registry.touch(id);
    queued += 1;
    chain = chain.then(async () => {
      try {
        const request = parseFrame(text(data));
        if (request.type === "close") {
          await parts.registry.close(id);
          socket.close(CLOSE_CODES.normal, "closed by client");
          return;
        }
        send({ type: "outcome", data: await session.answer(request) });
      } catch (error) {
        const refusal = asServeError(error);
        if (refusal.problem === "server_error") parts.log(`sandbox session ${id}: ${String((error as Error)?.stack ?? error)}`);
        refuse(refusal);
      } finally {
        queued -= 1;
        parts.registry.touch(id);
      }
    });
  });
  socket.on("close", () => {
    void parts.registry.close(id);
  });
}
