import type { RawData, WebSocket } from "ws";
import { ServeRequestError } from "../spec/index.js";
import { asServeError, errorData } from "./problems.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { SessionRegistry } from "./session-registry.js";

/** What a WebSocket connection that holds one session needs from the server. */
export interface FramedConnectionParts {
  readonly registry: SessionRegistry;
  readonly limiter: RateLimiter;
  readonly newId: () => string;
  /** Bytes queued for a client that does not read before it is dropped. */
  readonly maxBufferedBytes: number;
  /** Frames accepted before earlier ones are answered. */
  readonly maxQueuedFrames: number;
  /** Told about faults of the server itself (never about client mistakes). */
  readonly log: (line: string) => void;
}

/** The protocol of one kind of session connection: how its session opens and how a frame is answered. */
export interface FramedProtocol<S> {
  /** Names the session in the server's log, e.g. `websocket session`. */
  readonly label: string;
  /**
   * Opens the session `id` in the registry; `expire` is called when the registry closes it for idleness.
   * @throws to refuse the connection (e.g. ServeRequestError `capacity_reached`)
   */
  readonly open: (id: string, expire: () => void) => S;
  /**
   * The frame answering one client frame (its text), or null for none; `close` closes the session and then
   * the connection (a `close` request).
   * @throws ServeRequestError for a refusal, sent as an error frame; anything else is a server fault
   */
  readonly answer: (session: S, raw: string, close: () => Promise<void>) => Promise<unknown>;
  /**
   * A session the connection joins instead of opening one (OpenEnv's MCP session named by
   * `/ws?session_id=`): the connection neither opens nor closes it; closing the connection, or a
   * `close` request, only detaches. @default none: the connection opens its own session
   */
  readonly shared?: { readonly id: string; readonly session: S };
}

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = { normal: 1000, goingAway: 1001, tryAgainLater: 1013 } as const;

/**
 * Serves one WebSocket connection that holds one session (`/ws`, `/v1/sandbox`): the session is
 * opened at connect (a refusal is sent as an error frame and the connection closed with 1013),
 * then every frame is answered in order, one at a time, with the protocol's answer or an
 * `error` frame (`{ type: "error", data }`, OpenEnv's shape); the session goes on after a
 * refusal. Frames over the rate limit, or more than `maxQueuedFrames` waiting, are refused with
 * `rate_limited`; a client that stops reading is dropped once `maxBufferedBytes` wait for it.
 * The session is closed when the connection closes; a `close` request closes the session before
 * the connection, so a client that waits for the close knows nothing is left running.
 *
 * @param key the rate-limit key of the connection (its token, or its address)
 */
export function serveFramedConnection<S>(socket: WebSocket, key: string, parts: FramedConnectionParts, protocol: FramedProtocol<S>): void {
  const shared = protocol.shared;
  const id = shared?.id ?? parts.newId();
  const send = (frame: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(frame));
    if (socket.bufferedAmount > parts.maxBufferedBytes) socket.terminate();
  };
  const refuse = (error: ServeRequestError) => send({ type: "error", data: errorData(error) });
  socket.on("error", () => undefined); // oversize frames and broken sockets surface as a close below

  let session: S;
  try {
    session = shared?.session ?? protocol.open(id, () => {
      refuse(new ServeRequestError("session_expired", "session closed after being idle for longer than the idle timeout"));
      socket.close(CLOSE_CODES.normal, "idle timeout");
    });
  } catch (error) {
    refuse(asServeError(error));
    socket.close(CLOSE_CODES.tryAgainLater, "not accepted");
    return;
  }
  const close = async () => {
    if (shared === undefined) await parts.registry.close(id);
    socket.close(CLOSE_CODES.normal, "closed by client");
  };

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
        const frame = await protocol.answer(session, text(data), close);
        if (frame !== null) send(frame);
      } catch (error) {
        const refusal = asServeError(error);
        if (refusal.problem === "server_error") parts.log(`${protocol.label} ${id}: ${String((error as Error)?.stack ?? error)}`);
        refuse(refusal);
      } finally {
        queued -= 1;
        parts.registry.touch(id);
      }
    });
  });
  socket.on("close", () => {
    if (shared === undefined) void parts.registry.close(id);
  });
}

/** The text of a frame (a buffer, or fragments). */
function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

/**
 * The JSON message of a frame whose `type` is one of `types`.
 * @throws ServeRequestError `invalid_json` for text that is not JSON, `invalid_request` for JSON that is not an object,
 * `unknown_message_type` for another type (`hint` appended)
 */
export function typedMessage(raw: string, types: ReadonlySet<string>, hint = ""): { readonly type: string; readonly message: unknown } {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch (error) {
    throw new ServeRequestError("invalid_json", `Invalid JSON: ${(error as Error).message}`);
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw new ServeRequestError("invalid_request", `a frame must be a JSON object with a "type" (one of ${[...types].join(", ")}), not ${Array.isArray(message) ? "an array" : message === null ? "null" : `a ${typeof message}`}`);
  }
  const type = (message as { type?: unknown }).type;
  if (typeof type !== "string" || !types.has(type)) {
    throw new ServeRequestError("unknown_message_type", `Unknown message type: ${String(type ?? "").slice(0, 100)}${hint}`);
  }
  return { type, message };
}
