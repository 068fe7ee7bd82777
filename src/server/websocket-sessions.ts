import type { WebSocket } from "ws";
import { serveFramedConnection, typedMessage, type FramedConnectionParts } from "./framed-connection.js";
import { FRAME_TYPES, IncomingFrameSchema, type OutgoingFrame } from "./openenv-wire.js";
import type { ServedSession } from "./served-session.js";
import { parseRequest } from "./validation.js";

/**
 * Serves one OpenEnv WebSocket connection (`/ws`) through {@link serveFramedConnection}: a session
 * is opened at connect (a full server answers `CAPACITY_REACHED` and closes, as OpenEnv does),
 * then every frame is answered in order with an `observation`, `state` or `error` frame; `close`
 * (or the socket closing) ends the session. Malformed frames get `INVALID_JSON`, `UNKNOWN_TYPE`
 * or `VALIDATION_ERROR` and the session goes on. A client that stops reading is dropped once
 * `maxBufferedBytes` wait for it.
 *
 * @param key the rate-limit key of the connection (its token, or its address)
 * @param shared an MCP session the connection joins (`/ws?session_id=`, as OpenEnv's MCP client connects) instead of opening its own
 */
export function serveWebSocket(socket: WebSocket, key: string, parts: FramedConnectionParts, shared?: { readonly id: string; readonly session: ServedSession }): void {
  serveFramedConnection(socket, key, parts, {
    label: "websocket session",
    open: (id, expire) => parts.registry.open(id, "websocket", expire),
    answer,
    ...(shared === undefined ? {} : { shared }),
  });
}

/** The answer to one frame, or null for `close`. */
async function answer(session: ServedSession, raw: string, close: () => Promise<void>): Promise<OutgoingFrame | null> {
  const { type, message } = typedMessage(raw, FRAME_TYPES);
  const frame = parseRequest(IncomingFrameSchema, message, `${type} message`);
  switch (frame.type) {
    case "reset":
      return { type: "observation", data: await session.reset(frame.data) };
    case "step":
      return { type: "observation", data: await session.step(frame.data) };
    case "state":
      return { type: "state", data: session.state() };
    case "close":
      await close();
      return null;
  }
}
