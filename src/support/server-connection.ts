import { ServeRequestError, serveRefusal, type ServeProblem } from "../spec/index.js";
import { WebSocketExchange, WebSocketExchangeError, type WebSocketExchangeOptions } from "./websocket-exchange.js";

/** Where an envforge environment server is and how to authenticate to it. */
export interface ServerAddress {
  /** Server root, e.g. `http://127.0.0.1:8000`. */
  readonly baseUrl: string;
  /** Bearer token, when the server requires one. @default none */
  readonly token?: string;
  /** Limit of the connect and handshake, milliseconds. @default 60000 */
  readonly timeoutMs?: number;
}

/**
 * Opens a JSON-frame WebSocket connection to `path` of an envforge server (`/ws`, `/v1/sandbox`),
 * with the bearer token.
 * @param extra more connection options (a heartbeat)
 * @throws ServeRequestError the server's refusal of the handshake (`unauthorized`, `capacity_reached`, `draining`, …), or `server_error` when unreachable
 */
export async function connectFrames(address: ServerAddress, path: string, extra: Pick<WebSocketExchangeOptions, "heartbeatMs"> = {}): Promise<WebSocketExchange> {
  const url = `${address.baseUrl.replace(/\/+$/, "").replace(/^http/, "ws")}${path}`;
  try {
    return await WebSocketExchange.connect(url, {
      headers: address.token === undefined ? {} : { authorization: `Bearer ${address.token}` },
      handshakeTimeoutMs: address.timeoutMs ?? 60_000,
      ...extra,
    });
  } catch (error) {
    if (error instanceof WebSocketExchangeError && error.problem === "refused") {
      throw serveRefusal(error.body, error.message, error.details.status === 401 ? "unauthorized" : "server_error");
    }
    throw new ServeRequestError("server_error", (error as Error).message, { cause: error });
  }
}

/**
 * The typed error of a failed exchange on `connection`: the error frame the server sent before
 * closing, `frame_too_large` for close code 1009 (a frame over the server's limit), else
 * `server_error` (retryable: the connection dropped, timed out or stopped answering pings).
 */
export function frameFailure(connection: WebSocketExchange, error: unknown): ServeRequestError {
  if (error instanceof ServeRequestError) return error;
  const unsolicited = connection.unsolicited;
  if (unsolicited?.type === "error") return serveRefusal(unsolicited.data, "error frame", "server_error");
  if (error instanceof WebSocketExchangeError) {
    const problem: ServeProblem = error.details.closeCode === 1009 ? "frame_too_large" : "server_error";
    return new ServeRequestError(problem, error.message, { cause: error });
  }
  return new ServeRequestError("server_error", String((error as Error)?.message ?? error), { cause: error });
}
