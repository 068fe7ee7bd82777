import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { assertSafeBinding, authenticate, isLocalRequest } from "../server/access.js";
import { sendJson } from "../server/http-exchange.js";
import { matchRoute } from "../server/router.js";
import { ServeRequestError } from "../spec/index.js";
import { ChangeFeed } from "./change-feed.js";
import { dashboardRoutes } from "./dashboard-routes.js";
import { dashboardErrorAnswer } from "./error-answers.js";
import { discoverRunFolders, type RunFolder } from "./run-folders.js";
import { DEFAULT_ASSETS_DIR, readStaticAsset } from "./static-assets.js";

/** Options of {@link startDashboardServer}. */
export interface DashboardServerOptions {
  /** Run folders, evolution folders, or folders of them (such as `runs/`). */
  readonly folders: readonly string[];
  /** Bind address. @default "127.0.0.1" */
  readonly host?: string;
  /** TCP port; 0 = any free port. @default 0 */
  readonly port?: number;
  /** Accepted bearer tokens; required for a non-loopback `host`. @default [] */
  readonly tokens?: readonly string[];
  /** Name of the variable the tokens came from, for the refusal message. @default "ENVFORGE_DASHBOARD_TOKEN" */
  readonly tokenEnv?: string;
  /** The bundled page. @default {@link DEFAULT_ASSETS_DIR} */
  readonly assetsDir?: string;
  /** How often the folders are checked for writes, milliseconds. @default 1000 */
  readonly pollIntervalMs?: number;
  /** Where unexpected errors are logged. @default stderr */
  readonly log?: (line: string) => void;
}

/** A running dashboard. */
export interface DashboardServer {
  /** `http://host:port` it listens on. */
  readonly url: string;
  readonly port: number;
  /** Ends the live-update streams and stops listening. */
  close(): Promise<void>;
}

/**
 * Content-Security-Policy of every answer: scripts and styles only from the server itself, no
 * inline script, no plugin, no frame: a model's text that slipped into markup could not run.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/**
 * Starts the dashboard (`envforge dashboard`): the bundled page and read-only JSON routes over
 * the run and evolution folders, on node:http with the environment server's router, access
 * rules and error answers. Loopback without a token answers only loopback clients (a loopback
 * `Host`, no foreign `Origin`); any other bind needs a token, sent as `Authorization: Bearer`
 * on `/api/*` (the page takes it from the URL fragment `#token=…`, which never reaches a server
 * log). `GET /api/events` is a server-sent-event stream: `change` with `{ runs: [ids] }`
 * whenever a folder's store or metrics change. Nothing is ever written to the folders.
 *
 * @throws ConfigError when `host` is not loopback and `tokens` is empty
 * @throws Error when the address cannot be bound
 */
export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const host = options.host ?? "127.0.0.1";
  const tokens = options.tokens ?? [];
  assertSafeBinding(host, tokens, options.tokenEnv ?? "ENVFORGE_DASHBOARD_TOKEN");
  const assetsDir = options.assetsDir ?? DEFAULT_ASSETS_DIR;
  const log = options.log ?? ((line: string) => process.stderr.write(`envforge dashboard: ${line}\n`));
  const folders = (): RunFolder[] => discoverRunFolders(options.folders);
  const routes = dashboardRoutes(folders);
  const streams = new Set<ServerResponse>();
  const feed = new ChangeFeed({
    folders,
    intervalMs: options.pollIntervalMs ?? 1000,
    onChange: (runs) => {
      const frame = `event: change\ndata: ${JSON.stringify({ runs })}\n\n`;
      for (const stream of streams) stream.write(frame);
    },
  });
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(": keep-alive\n\n");
  }, 15_000);
  heartbeat.unref();

  const admit = (request: IncomingMessage, api: boolean): void => {
    if (tokens.length > 0) {
      if (api && authenticate(request.headers.authorization, tokens) === null) {
        throw new ServeRequestError("unauthorized", "missing or wrong bearer token: open the page as http://host:port/#token=<token>");
      }
      return;
    }
    if (!isLocalRequest(request.headers)) {
      throw new ServeRequestError("unauthorized", "without a token the dashboard answers only loopback clients (a loopback Host, no foreign Origin)");
    }
  };

  const openStream = (request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", connection: "keep-alive" });
    response.write(`retry: 2000\nevent: hello\ndata: {}\n\n`);
    streams.add(response);
    feed.start();
    request.on("close", () => {
      streams.delete(response);
      if (streams.size === 0) feed.stop();
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      const url = new URL(request.url ?? "/", "http://dashboard");
      const api = url.pathname === "/api" || url.pathname.startsWith("/api/");
      admit(request, api);
      if (request.method !== "GET" && request.method !== "HEAD") throw new ServeRequestError("method_not_allowed", `the dashboard is read-only: method ${String(request.method).slice(0, 20)} is not allowed`, { allow: ["GET", "HEAD"] });
      if (url.pathname === "/api/events") {
        openStream(request, response);
        return;
      }
      if (!api) {
        const asset = readStaticAsset(assetsDir, url.pathname);
        if (asset === null && url.pathname === "/") {
          throw new ServeRequestError("not_found", `the dashboard page is not built (${assetsDir} has no index.html): run npm run build`);
        }
        if (asset === null) throw new ServeRequestError("not_found", `no file ${url.pathname.slice(0, 200)}`);
        response.writeHead(200, {
          ...SECURITY_HEADERS,
          "content-type": asset.contentType,
          "content-length": asset.body.length,
          ...(asset.immutable ? { "cache-control": "public, max-age=31536000, immutable" } : {}),
        });
        response.end(request.method === "HEAD" ? undefined : asset.body);
        return;
      }
      const { route, params } = matchRoute(routes, request.method, url.pathname);
      const answer = await route.handle({ request, url, params, body: async () => ({}) });
      sendJson(response, answer.status, answer.body, SECURITY_HEADERS);
    } catch (error) {
      const answer = dashboardErrorAnswer(error);
      if (answer.status === 500) log(`${request.method} ${request.url}: ${String((error as Error)?.stack ?? error)}`);
      sendJson(response, answer.status, answer.body, { ...SECURITY_HEADERS, ...answer.headers });
    }
  };

  const server: Server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5000, maxHeaderSize: 16 * 1024 }, (request, response) => void handle(request, response));
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        clearInterval(heartbeat);
        feed.stop();
        for (const stream of streams) stream.end();
        streams.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
