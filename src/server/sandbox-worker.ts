import type { WebSocket } from "ws";
import { WORKER_REQUEST_TYPES, WorkerRequestSchema, type WorkerRequest } from "../adapters/sandbox/index.js";
import { ServeRequestError, type EnvSession, type Sandbox, type SandboxOutcome } from "../spec/index.js";
import { serveFramedConnection, typedMessage, type FramedConnectionParts } from "./framed-connection.js";
import type { HeldSession } from "./session-registry.js";
import { parseRequest } from "./validation.js";

/** What a sandbox-worker connection needs from the server. */
export interface SandboxWorkerParts extends FramedConnectionParts {
  /** The server's sandbox: every program runs in its jails, never in the server's process. */
  readonly sandbox: Sandbox;
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
          return this.track(await session.reset(request.data.seed, request.data.level), (observation) => observation !== null);
        case "step":
          return this.track(await session.step(request.data.action), (step) => !step.terminated && !step.truncated);
        case "run_actions": {
          if (session.runActions === undefined) throw new ServeRequestError("not_supported", "this server's sandbox backend has no runActions");
          const outcome = await session.runActions(request.data.seed, request.data.actions, request.data.level);
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

/** The request in one frame. @throws ServeRequestError `invalid_json`, `unknown_message_type`, `invalid_request` */
function parseFrame(raw: string): WorkerRequest {
  const { type, message } = typedMessage(raw, WORKER_REQUEST_TYPES, " (open, reset, step, run_actions, oracle_action, close)");
  return parseRequest(WorkerRequestSchema, message, `${type} message`);
}

/**
 * Serves one sandbox-worker connection (`/v1/sandbox`; protocol in `remote-wire.ts`) through
 * {@link serveFramedConnection}: a session is held in the server's session slots at connect (a
 * full or draining server answers an error frame and closes with 1013), then every frame is
 * answered in order with `{ type: "outcome", data }` or an error frame. The program runs in the
 * server's jails with the server's limits, as every served episode does. `close`, or the
 * connection closing, closes the session and frees its episode process; the server closes the
 * connection only after that, so a client that waits for the close knows nothing is left running.
 *
 * @param key the rate-limit key of the connection (its token, or its address)
 */
export function serveSandboxWorker(socket: WebSocket, key: string, parts: SandboxWorkerParts): void {
  serveFramedConnection(socket, key, parts, {
    label: "sandbox session",
    open: (id, expire) => parts.registry.hold(id, () => new SandboxWorkerSession(id, parts.sandbox), expire),
    answer: async (session, raw, close) => {
      const request = parseFrame(raw);
      if (request.type === "close") {
        await close();
        return null;
      }
      return { type: "outcome", data: await session.answer(request) };
    },
  });
}
