import type { RawData, WebSocket } from "ws";
import { ServeRequestError } from "../spec/index.js";
import { FRAME_TYPES, IncomingFrameSchema, type OutgoingFrame } from "./openenv-wire.js";
import { asServeError, errorData } from "./problems.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { ServedSession } from "./served-session.js";
import type { SessionRegistry } from "./session-registry.js";
import { parseRequest } from "./validation.js";

/** What a WebSocket session needs from the server. */
export interface WebSocketSessionParts {
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

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = { normal: 1000, goingAway: 1001, tryAgainLater: 1013 } as const;

/**
 * Serves one OpenEnv WebSocket connection (`/ws`): a session is opened at connect (a full
 * server answers `CAPACITY_REACHED` and closes, as OpenEnv does), then every frame is answered in
 * order with an `observation`, `state` or `error` frame; `close` (or the socket closing) ends the
 * session. Malformed frames get `INVALID_JSON`, `UNKNOWN_TYPE` or `VALIDATION_ERROR` and the
 * session goes on. A client that stops reading is dropped once `maxBufferedBytes` wait for it.
 *
 * @param key the rate-limit key of the connection (its token, or its address)
 */
export function serveWebSocket(socket: WebSocket, key: string, parts: WebSocketSessionParts): void {
  const id = parts.newId();
  const send = (frame: OutgoingFrame) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(frame));
    if (socket.bufferedAmount > parts.maxBufferedBytes) socket.terminate();
  };
  const refuse = (error: ServeRequestError) => send({ type: "error", data: errorData(error) });
  socket.on("error", () => undefined); // oversize frames and broken sockets surface as a close below

  let session: ServedSession;
  try {
    session = parts.registry.open(id, "websocket", () => {
      refuse(new ServeRequestError("session_expired", "session closed after being idle for longer than the idle timeout"));
      socket.close(CLOSE_CODES.normal, "idle timeout");
    });
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
        const frame = await answer(session, text(data), () => socket.close(CLOSE_CODES.normal, "closed by client"));
        if (frame !== null) send(frame);
      } catch (error) {
        const refusal = asServeError(error);
        if (refusal.problem === "server_error") parts.log(`websocket session ${id}: ${String((error as Error)?.stack ?? error)}`);
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

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}

/** The answer to one frame, or null for `close`. */
async function answer(session: ServedSession, raw: string, close: () => void): Promise<OutgoingFrame | null> {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch (error) {
    throw new ServeRequestError("invalid_json", `Invalid JSON: ${(error as Error).message}`);
  }
  const type = typeof message === "object" && message !== null ? (message as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !FRAME_TYPES.has(type)) {
    throw new ServeRequestError("unknown_message_type", `Unknown message type: ${String(type ?? "").slice(0, 100)}`);
  }
  const frame = parseRequest(IncomingFrameSchema, message, `${type} message`);
  switch (frame.type) {
    case "reset":
      return { type: "observation", data: await session.reset(frame.data) };
    case "step":
      return { type: "observation", data: await session.step(frame.data) };
    case "state":
      return { type: "state", data: session.state() };
    case "close":
      close();
      return null;
  }
}
