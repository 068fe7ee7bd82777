import { WebSocket } from "ws";

/**
 * Why a {@link WebSocketExchange} could not deliver an answer:
 * - `unreachable`: the connection could not be made (refused, DNS, handshake timeout);
 * - `refused`: the server answered the handshake with an HTTP error (`status`, `body`);
 * - `closed`: the connection closed before the answer (`closeCode`: 1009 = a frame over the peer's limit;
 *   1006 = dropped without a close frame, e.g. the peer died);
 * - `timeout`: no answer within the call's time limit;
 * - `heartbeat`: the peer stopped answering pings (the connection was then terminated).
 */
export type WebSocketExchangeProblem = "unreachable" | "refused" | "closed" | "timeout" | "heartbeat";

/** A failed exchange; callers map it onto their own typed errors. */
export class WebSocketExchangeError extends Error {
  /** Parsed JSON body of a refused handshake, or null. */
  readonly body: unknown;

  /**
   * @param problem what went wrong
   * @param options `status` (HTTP status of a refused handshake), `closeCode` (WebSocket close code), `body`, `cause`
   */
  constructor(
    readonly problem: WebSocketExchangeProblem,
    message: string,
    readonly details: { readonly status?: number; readonly closeCode?: number; readonly body?: unknown; readonly cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "WebSocketExchangeError";
    this.body = details.body ?? null;
  }
}

/** Options of {@link WebSocketExchange.connect}. */
export interface WebSocketExchangeOptions {
  /** Extra handshake headers (e.g. `authorization`). @default none */
  readonly headers?: Readonly<Record<string, string>>;
  /** Limit of the TCP connect and the handshake, milliseconds. @default 60000 */
  readonly handshakeTimeoutMs?: number;
  /** Largest frame accepted from the peer, bytes. @default 268435456 (256 MiB) */
  readonly maxPayload?: number;
  /**
   * Ping the peer every this many milliseconds; a peer that has not answered the previous ping
   * when the next is due is taken for dead (the connection is terminated and pending calls fail
   * with `heartbeat`). 0 = no pings. @default 0
   */
  readonly heartbeatMs?: number;
}

/** One frame of a JSON frame protocol: its `type` and `data`. */
export interface JsonFrame {
  readonly type: string;
  readonly data: unknown;
}

interface Waiter {
  readonly resolve: (frame: JsonFrame) => void;
  readonly reject: (error: WebSocketExchangeError) => void;
}

/**
 * A WebSocket connection that speaks a request–answer protocol of JSON frames without request
 * ids (OpenEnv's `/ws`, envforge's `/v1/sandbox`): every frame sent is answered by the next frame
 * received, in order, so calls are queued. A frame that arrives with nobody waiting is kept as
 * the connection's `unsolicited` frame (servers send an error frame before closing). A closed
 * connection fails every waiting call and every later one.
 */
export class WebSocketExchange {
  private readonly waiting: Waiter[] = [];
  private closedWith: WebSocketExchangeError | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  /** The last frame that arrived while no call was waiting, or null. */
  unsolicited: JsonFrame | null = null;

  private constructor(private readonly socket: WebSocket, heartbeatMs: number) {
    socket.on("message", (data) => this.onFrame(data.toString()));
    socket.on("error", () => undefined); // surfaces as the close below
    socket.on("pong", () => {
      this.awaitingPong = false;
    });
    socket.on("close", (code, reason) => {
      this.stopHeartbeat();
      this.closedWith ??= new WebSocketExchangeError("closed", `connection closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ""})`, { closeCode: code });
      for (const waiter of this.waiting.splice(0)) waiter.reject(this.closedWith);
    });
    if (heartbeatMs > 0) {
      this.heartbeat = setInterval(() => {
        if (this.awaitingPong) {
          this.closedWith ??= new WebSocketExchangeError("heartbeat", `no answer to a ping within ${heartbeatMs} ms`);
          socket.terminate();
          return;
        }
        this.awaitingPong = true;
        socket.ping();
      }, heartbeatMs);
      this.heartbeat.unref();
    }
  }

  /**
   * Connects to `url` (`ws://` or `wss://`).
   * @throws WebSocketExchangeError `refused` (the handshake got an HTTP answer; its JSON body in `body`) or `unreachable`
   */
  static connect(url: string, options: WebSocketExchangeOptions = {}): Promise<WebSocketExchange> {
    const socket = new WebSocket(url, {
      headers: { ...(options.headers ?? {}) },
      handshakeTimeout: options.handshakeTimeoutMs ?? 60_000,
      maxPayload: options.maxPayload ?? 256 * 1024 * 1024,
      perMessageDeflate: false,
    });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new WebSocketExchange(socket, options.heartbeatMs ?? 0)));
      socket.once("unexpected-response", (_request, response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          let body: unknown = null;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            body = null;
          }
          reject(new WebSocketExchangeError("refused", `handshake refused with HTTP ${response.statusCode}`, { status: response.statusCode ?? 0, body }));
          socket.terminate();
        });
      });
      socket.once("error", (error) => reject(new WebSocketExchangeError("unreachable", `cannot connect to ${url}: ${error.message}`, { cause: error })));
    });
  }

  /** Whether the connection is closed (or closing). */
  get isClosed(): boolean {
    return this.closedWith !== null || this.socket.readyState >= this.socket.CLOSING;
  }

  /**
   * Sends `frame` (text) after every earlier call has been answered, and returns the next frame received.
   * @param timeoutMs answer limit, milliseconds; null = none (a heartbeat still catches a dead peer)
   * @throws WebSocketExchangeError `closed`, `heartbeat` or `timeout`
   */
  exchange(frame: string, timeoutMs: number | null): Promise<JsonFrame> {
    const run = this.tail.then(() => this.send(frame, timeoutMs));
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Sends `frame` (when given and still open) and closes the connection with code 1000, waiting for
   * the close. Idempotent.
   * @param options `frame` to send first; `peerCloseMs`: milliseconds to wait for the peer to close
   *   the connection itself after `frame` (a server that closes only once it has freed the session)
   *   before closing from this side (default 0); `timeoutMs`: milliseconds to wait for the close
   *   handshake before the connection is cut (default 5000)
   */
  async close(options: { readonly frame?: string; readonly peerCloseMs?: number; readonly timeoutMs?: number } = {}): Promise<void> {
    this.stopHeartbeat();
    if (this.socket.readyState === this.socket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.socket.once("close", () => resolve()));
    if (options.frame !== undefined && this.socket.readyState === this.socket.OPEN) {
      this.socket.send(options.frame);
      const peerCloseMs = options.peerCloseMs ?? 0;
      if (peerCloseMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, peerCloseMs)))]);
        clearTimeout(timer);
      }
    }
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000);
    const timer = setTimeout(() => this.socket.terminate(), options.timeoutMs ?? 5000);
    await closed;
    clearTimeout(timer);
  }

  /** Cuts the connection at once (no close handshake). */
  terminate(): void {
    this.stopHeartbeat();
    this.socket.terminate();
  }

  private send(frame: string, timeoutMs: number | null): Promise<JsonFrame> {
    if (this.closedWith !== null) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === null
          ? null
          : setTimeout(() => {
              const index = this.waiting.indexOf(waiter);
              if (index >= 0) this.waiting.splice(index, 1);
              reject(new WebSocketExchangeError("timeout", `no answer within ${timeoutMs} ms`));
            }, timeoutMs);
      const waiter: Waiter = {
        resolve: (answer) => {
          if (timer !== null) clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          if (timer !== null) clearTimeout(timer);
          reject(error);
        },
      };
      this.waiting.push(waiter);
      this.socket.send(frame, (error) => {
        if (!error) return;
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        waiter.reject(new WebSocketExchangeError("closed", `send failed: ${error.message}`, { cause: error }));
      });
    });
  }

  private onFrame(text: string): void {
    let frame: JsonFrame;
    try {
      frame = JSON.parse(text) as JsonFrame;
    } catch {
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter.resolve(frame);
    else this.unsolicited = frame;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
