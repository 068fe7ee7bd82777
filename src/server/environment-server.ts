import { randomInt, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import type { Config } from "../config/index.js";
import { SANDBOX_WORKER_PATH } from "../adapters/sandbox/index.js";
import { ServeRequestError, type Sandbox } from "../spec/index.js";
import { assertSafeBinding, authenticate, isLocalRequest } from "./access.js";
import { EpisodeRunner } from "./batch-episodes.js";
import type { EnvironmentCatalog } from "./catalog.js";
import { envforgeRoutes } from "./envforge-routes.js";
import { readJsonBody, sendJson, sendRefusal } from "./http-exchange.js";
import { McpEndpoint, MCP_PATH } from "./mcp-endpoint.js";
import { openApiDocument } from "./openapi.js";
import { openEnvRoutes } from "./openenv-routes.js";
import { asServeError, errorAnswer } from "./problems.js";
import { RateLimiter } from "./rate-limiter.js";
import { matchRoute, type Route } from "./router.js";
import { ServedSession } from "./served-session.js";
import { SessionRegistry } from "./session-registry.js";
import { serveSandboxWorker } from "./sandbox-worker.js";
import { CLOSE_CODES } from "./framed-connection.js";
import { serveWebSocket } from "./websocket-sessions.js";

/** The server settings (`config.serve`). */
export type ServeSettings = Config["serve"];

/** Options of {@link startEnvironmentServer}. */
export interface EnvironmentServerOptions {
  readonly catalog: EnvironmentCatalog;
  /** Runs every environment program (the caller opens and closes it). */
  readonly sandbox: Sandbox;
  readonly settings: ServeSettings;
  /** Accepted bearer tokens; empty = none required (allowed on loopback only). */
  readonly tokens: readonly string[];
  /** envforge's version, for `/metadata`. @default "0.1.0" */
  readonly version?: string;
  /** Milliseconds clock (idle expiry, rate limits). @default Date.now */
  readonly now?: () => number;
  /** Seed of a reset that names none. @default a random integer below 2^31 */
  readonly randomSeed?: () => number;
  /** Session and episode ids. @default crypto.randomUUID */
  readonly newId?: () => string;
  /** Faults of the server itself. @default writes to stderr */
  readonly log?: (line: string) => void;
}

/** Counters of a running server. */
export interface EnvironmentServerStats {
  readonly sessions: number;
  readonly websocket: number;
  readonly http: number;
  /** MCP sessions (`/mcp`: the SDK's streamable HTTP sessions and OpenEnv's `openenv/session/create` ones). */
  readonly mcp: number;
  /** Sandbox-worker sessions (`/v1/sandbox`, the remote sandbox backend's). */
  readonly sandbox: number;
  readonly capacity: number;
  readonly draining: boolean;
  /** Open TCP connections (HTTP and WebSocket). */
  readonly connections: number;
}

/** A running environment server. */
export interface EnvironmentServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  stats(): EnvironmentServerStats;
  /**
   * Graceful drain: refuses new sessions and episodes (`draining`), waits until no episode is under
   * way or `timeoutMs` passed, then closes every session and connection (WebSocket close 1001) and
   * stops listening. Idempotent.
   * @param timeoutMs milliseconds. @default settings.drainTimeoutMs
   */
  drain(timeoutMs?: number): Promise<void>;
  /** Closes at once (a drain with no wait). */
  close(): Promise<void>;
}

/** Extra connections beyond `capacity` that may wait in the WebSocket handshake or the HTTP routes. */
const CONNECTION_SLACK = 256;

/**
 * Starts the environment server: OpenEnv's wire protocol (WebSocket `/ws`; HTTP `/reset`,
 * `/step`, `/state`, `/health`, `/metadata`, `/schema`, `/openapi.json`; MCP tools on `/mcp`, see {@link McpEndpoint}) and envforge's `/v1` routes, over one
 * HTTP listener; and, unless `settings.acceptPrograms` is false, the sandbox-worker WebSocket
 * `/v1/sandbox` that runs programs sent inline (the `remote` sandbox backend's), behind the same
 * token, rate and frame limits and session slots. Every episode runs in `sandbox`; no
 * environment code runs in this process.
 *
 * @throws ConfigError when `settings.host` is not loopback and `tokens` is empty
 * @throws Error when the address cannot be bound (e.g. `EADDRINUSE`)
 */
export async function startEnvironmentServer(options: EnvironmentServerOptions): Promise<EnvironmentServer> {
  const { settings, catalog, sandbox, tokens } = options;
  assertSafeBinding(settings.host, tokens, settings.tokenEnv);
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  const log = options.log ?? ((line: string) => process.stderr.write(`envforge serve: ${line}\n`));
  const sessionDependencies = {
    catalog,
    sandbox,
    maxActionBytes: settings.maxActionBytes,
    randomSeed: options.randomSeed ?? (() => randomInt(0, 2 ** 31 - 1)),
    newId,
    isDraining: () => registry.isDraining,
  };
  const registry = new SessionRegistry({
    capacity: settings.capacity,
    idleTimeoutMs: settings.idleTimeoutMs,
    now,
    create: (id) => new ServedSession(id, sessionDependencies),
  });
  const limiter = new RateLimiter({ perSecond: settings.rateLimitPerSecond, burst: settings.rateLimitBurst, now });
  const runner = new EpisodeRunner(catalog, sandbox, { concurrency: settings.batchConcurrency, maxActionBytes: settings.maxActionBytes, maxPerRequest: settings.maxEpisodesPerRequest });
  const mcp = new McpEndpoint({ catalog, registry, newId, version: options.version ?? "0.1.0", maxBodyBytes: settings.maxBodyBytes });
  const startedAt = now();
  const routes: Route[] = [
    ...openEnvRoutes({ catalog, registry, newId, version: options.version ?? "0.1.0" }),
    ...envforgeRoutes({ catalog, registry, runner, capacity: settings.capacity, startedAt, now }),
  ];
  const openApi = openApiDocument(routes, options.version ?? "0.1.0");
  routes.push({ method: "GET", pattern: "/openapi.json", handle: () => ({ status: 200, body: openApi }) });

  /** The rate-limit key of a request, or a refusal (`unauthorized`, `rate_limited`). */
  const admit = (request: IncomingMessage): string => {
    let key: string;
    if (tokens.length > 0) {
      const token = authenticate(request.headers.authorization, tokens);
      if (token === null) throw new ServeRequestError("unauthorized", "missing or wrong bearer token (Authorization: Bearer <token>)");
      key = `token:${token}`;
    } else {
      if (!isLocalRequest(request.headers)) throw new ServeRequestError("unauthorized", "without a token this server answers only loopback clients (a loopback Host, no foreign Origin); set a token to serve others");
      key = `address:${request.socket.remoteAddress ?? "unknown"}`;
    }
    const decision = limiter.take(key);
    if (!decision.allowed) throw new ServeRequestError("rate_limited", "request rate over the limit", { retryAfterMs: decision.retryAfterMs });
    return key;
  };

  const handleRequest = async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const url = new URL(request.url ?? "/", "http://server");
      admit(request);
      if (url.pathname === MCP_PATH) {
        await mcp.handle(request, response);
        return;
      }
      const { route, params } = matchRoute(routes, request.method ?? "GET", url.pathname);
      const answer = await route.handle({ request, url, params, body: () => readJsonBody(request, settings.maxBodyBytes) });
      sendJson(response, answer.status, answer.body);
    } catch (error) {
      const refusal = asServeError(error);
      if (refusal.problem === "server_error") log(`${request.method} ${request.url}: ${String((error as Error)?.stack ?? error)}`);
      sendRefusal(response, refusal);
    }
  };

  const server: Server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.headersTimeoutMs / 2))),
      keepAliveTimeout: 5000,
      maxHeaderSize: 16 * 1024,
    },
    (request, response) => void handleRequest(request, response),
  );
  server.maxConnections = settings.capacity + CONNECTION_SLACK * 4;
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    socket.destroy();
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: settings.maxFrameBytes, perMessageDeflate: false });
  const alive = new WeakMap<WebSocket, boolean>();
  const webSocketParts = { registry, limiter, newId, maxBufferedBytes: settings.maxBufferedBytes, maxQueuedFrames: 64, log };
  const workerParts = { ...webSocketParts, sandbox };
  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => undefined);
    const refuse = (error: ServeRequestError) => {
      const answer = errorAnswer(error);
      const body = JSON.stringify(answer.body);
      const headers = Object.entries({ ...answer.headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), connection: "close" })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.end(`HTTP/1.1 ${answer.status} ${answer.status === 401 ? "Unauthorized" : "Refused"}\r\n${headers}\r\n${body}`);
    };
    try {
      const url = new URL(request.url ?? "/", "http://server");
      const worker = url.pathname === SANDBOX_WORKER_PATH;
      if (url.pathname !== "/ws" && !worker) throw new ServeRequestError("not_found", `no WebSocket endpoint ${url.pathname.slice(0, 200)} (use /ws)`);
      const key = admit(request);
      if (worker && !settings.acceptPrograms) throw new ServeRequestError("not_supported", `this server does not run programs sent to ${SANDBOX_WORKER_PATH} (serve.acceptPrograms is false)`);
      if (registry.isDraining) throw new ServeRequestError("draining", "the server is shutting down and opens no new session");
      if (wss.clients.size >= settings.capacity + CONNECTION_SLACK) throw new ServeRequestError("capacity_reached", `server at capacity: ${registry.size}/${settings.capacity} sessions active`);
      const joined = url.searchParams.get("session_id");
      const shared = joined === null || worker ? undefined : mcp.sharedSession(joined);
      if (joined !== null && !worker && shared === undefined) throw new ServeRequestError("not_found", `no MCP session ${joined.slice(0, 255)} to join (openenv/session/create opens one; it may have expired)`);
      wss.handleUpgrade(request, socket, head, (webSocket) => {
        alive.set(webSocket, true);
        webSocket.on("pong", () => alive.set(webSocket, true));
        if (worker) serveSandboxWorker(webSocket, key, workerParts);
        else serveWebSocket(webSocket, key, webSocketParts, shared === undefined ? undefined : { id: joined as string, session: shared });
      });
    } catch (error) {
      refuse(asServeError(error));
    }
  });

  const pinger = setInterval(() => {
    for (const webSocket of wss.clients) {
      if (alive.get(webSocket) === false) {
        webSocket.terminate();
        continue;
      }
      alive.set(webSocket, false);
      webSocket.ping();
    }
  }, settings.pingIntervalMs);
  const reaper = setInterval(() => void registry.expireIdle(), Math.max(20, Math.min(5000, Math.floor(settings.idleTimeoutMs / 4))));
  pinger.unref();
  reaper.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let drained: Promise<void> | null = null;
  const drain = (timeoutMs = settings.drainTimeoutMs): Promise<void> => {
    drained ??= (async () => {
      registry.startDrain();
      const deadline = now() + timeoutMs;
      while (!registry.allIdle() && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      clearInterval(pinger);
      clearInterval(reaper);
      for (const webSocket of wss.clients) webSocket.close(CLOSE_CODES.goingAway, "server shutting down");
      await mcp.closeAll();
      await registry.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const webSocket of wss.clients) webSocket.terminate();
      for (const socket of sockets) socket.destroy();
      await closed;
      wss.close();
    })();
    return drained;
  };

  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    stats: () => ({ sessions: registry.size, ...registry.counts(), capacity: settings.capacity, draining: registry.isDraining, connections: sockets.size }),
    drain,
    close: () => drain(0),
  };
}
