import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, isInitializeRequest, JSONRPCMessageSchema, McpError, type CallToolResult, type JSONRPCErrorResponse } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { renderToolCall, ServeRequestError } from "../spec/index.js";
import type { EnvironmentCatalog, ServedEnvironment } from "./catalog.js";
import { readJsonBody, sendJson } from "./http-exchange.js";
import { asServeError, PROBLEM_ANSWERS } from "./problems.js";
import type { ServedSession } from "./served-session.js";
import type { SessionRegistry } from "./session-registry.js";

/** What the MCP endpoint uses of the server. */
export interface McpEndpointParts {
  readonly catalog: EnvironmentCatalog;
  readonly registry: SessionRegistry;
  /** Ids of new MCP sessions. */
  readonly newId: () => string;
  /** envforge's version, in the MCP server's `initialize` answer. */
  readonly version: string;
  /** Largest request body, bytes. */
  readonly maxBodyBytes: number;
}

/** The endpoint's path (OpenEnv RFC 003). */
export const MCP_PATH = "/mcp";

/** OpenEnv's session methods on `/mcp` (its HTTP MCP client opens a session with the first, names it in every call's `params.session_id`, and closes it with the second). */
const OpenEnvSessionCreateSchema = z.object({ method: z.literal("openenv/session/create"), params: z.object({}).loose().optional() });
const OpenEnvSessionCloseSchema = z.object({ method: z.literal("openenv/session/close"), params: z.object({ session_id: z.string().min(1).max(255) }).loose() });

/** The Accept header the SDK's transport requires of a POST; a client that accepts anything (`*` `/` `*`, or no header: OpenEnv's httpx client) is given it. */
const MCP_ACCEPT = "application/json, text/event-stream";

/**
 * OpenEnv's MCP endpoint, `/mcp` (OpenEnv RFC 003), served by the official MCP TypeScript SDK
 * (`@modelcontextprotocol/sdk`: its `McpServer` and streamable HTTP transport, JSON answers, no
 * server-initiated stream, so `GET /mcp` is 405). An MCP-speaking agent plays an environment
 * through three tools: `reset` ({env?, seed?, level?}: starts an episode), `step` ({message}:
 * one action) and `state` ({}), plus `list_environments`; each answers the OpenEnv step payload
 * (`{observation: {text, metadata}, reward, done}`) as structured content and the observation's
 * text as text content. A refusal (step before reset, a level out of range, an unknown
 * environment…) is a tool result with `isError` and the problem's name, so the agent can recover.
 *
 * Two kinds of session, both held in the server's session registry (capacity, idle expiry and
 * drain as for every other session):
 * - MCP sessions of the streamable HTTP transport: `initialize` without an `Mcp-Session-Id`
 *   opens one (the header of the answer names it), `DELETE /mcp` closes it.
 * - OpenEnv's HTTP MCP sessions (`openenv.core.mcp_client.MCPToolClient`): the JSON-RPC
 *   method `openenv/session/create` answers `{session_id}`, later requests name it in
 *   `params.session_id` and need no `initialize`, `openenv/session/close` ends it.
 *
 * A tool-use environment's own tools are listed too ({@link McpEndpoint.registerEnvironmentTools}).
 */
export class McpEndpoint {
  /** Transports of the SDK's MCP sessions, by session id. */
  private readonly transports = new Map<string, StreamableHTTPServerTransport>();
  /** Sessions opened with `openenv/session/create`. */
  private readonly openEnvSessions = new Set<string>();
  /** The hosted tool environments' tools, once converted ({@link environmentTools}). */
  private toolSpecs: readonly EnvironmentTool[] | null = null;

  constructor(private readonly parts: McpEndpointParts) {}

  /**
   * Answers one request to `/mcp` (after the server's token and rate checks).
   * @throws ServeRequestError `method_not_allowed` (GET and others), `not_found` (an `Mcp-Session-Id` the server does not hold), `capacity_reached`/`draining` (a new session), `body_too_large`, `invalid_json`
   */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? "GET";
    if (method !== "POST" && method !== "DELETE") {
      throw new ServeRequestError("method_not_allowed", `${method.slice(0, 20)} ${MCP_PATH}: this server sends no server-initiated stream; POST JSON-RPC requests (DELETE ends a session)`, { allow: ["POST", "DELETE"] });
    }
    const header = request.headers["mcp-session-id"];
    const sessionId = typeof header === "string" && header !== "" ? header : null;
    if (method === "DELETE") {
      if (sessionId === null) throw new ServeRequestError("invalid_request", `DELETE ${MCP_PATH} needs the Mcp-Session-Id header of the session to end`);
      await this.transportOf(sessionId).handleRequest(request, response);
      return;
    }
    const body = await readJsonBody(request, this.parts.maxBodyBytes);
    acceptJsonAndEvents(request);
    if (sessionId !== null) {
      await this.transportOf(sessionId).handleRequest(request, response, body);
      return;
    }
    if (!Array.isArray(body) && !JSONRPCMessageSchema.safeParse(body).success) {
      // OpenEnv's contract (and `openenv validate --url`): /mcp answers a JSON-RPC payload, an error here, to any JSON body
      const answer: JSONRPCErrorResponse = { jsonrpc: "2.0", error: { code: ErrorCode.InvalidRequest, message: "Invalid Request: the body is not a JSON-RPC 2.0 message ({jsonrpc: \"2.0\", method, id?, params?})" } };
      sendJson(response, 200, answer);
      return;
    }
    if (isInitializeRequest(body)) await this.openSession(request, response, body);
    else await this.answerStateless(request, response, body);
  }

  /**
   * The session `openenv/session/create` opened under `id`, marking it active, or undefined: a
   * `/ws?session_id=<id>` connection joins it, so that WebSocket reset/step and MCP tool calls
   * play one episode (OpenEnv's MCP client connects so).
   */
  sharedSession(id: string): ServedSession | undefined {
    return this.openEnvSessions.has(id) ? this.parts.registry.touch(id) : undefined;
  }

  /** Closes every MCP transport (the server's drain; the registry closes the sessions themselves). */
  async closeAll(): Promise<void> {
    const transports = [...this.transports.values()];
    this.transports.clear();
    this.openEnvSessions.clear();
    await Promise.all(transports.map((transport) => transport.close()));
  }

  /** The transport of a held MCP session, marking the session active. */
  private transportOf(sessionId: string): StreamableHTTPServerTransport {
    const transport = this.transports.get(sessionId);
    if (transport === undefined) throw new ServeRequestError("not_found", `no MCP session ${sessionId.slice(0, 255)} (expired, closed, or never initialized): initialize a new one`);
    this.parts.registry.touch(sessionId);
    return transport;
  }

  /** `initialize` without a session: a new registry session, its transport and MCP server, then the answer (its header names the session). */
  private async openSession(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const id = this.parts.newId();
    const session = this.parts.registry.open(id, "mcp", () => void this.transports.get(id)?.close());
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id, enableJsonResponse: true });
    transport.onclose = () => {
      this.transports.delete(id);
      void this.parts.registry.close(id);
    };
    this.transports.set(id, transport);
    await this.server(() => session).connect(transport);
    await transport.handleRequest(request, response, body);
    if (transport.sessionId === undefined) await transport.close(); // the initialize was refused: nothing is held
  }

  /** A request outside any MCP session (OpenEnv's HTTP MCP client): a one-request transport; tools act on the session its `params.session_id` names. */
  private async answerStateless(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const named = openEnvSessionId(body);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = this.server(() => {
      if (named === null) throw new ServeRequestError("invalid_request", `no session: call openenv/session/create and name its session_id in params, or initialize an MCP session`);
      const session = this.openEnvSessions.has(named) ? this.parts.registry.touch(named) : undefined;
      if (session === undefined) throw new ServeRequestError("not_found", `Unknown session_id: ${named.slice(0, 255)} (expired, closed, or never created)`);
      return session;
    });
    server.server.setRequestHandler(OpenEnvSessionCreateSchema, () => {
      const id = this.parts.newId();
      try {
        this.parts.registry.open(id, "mcp", () => this.openEnvSessions.delete(id));
      } catch (error) {
        throw asMcpError(asServeError(error));
      }
      this.openEnvSessions.add(id);
      return { session_id: id };
    });
    server.server.setRequestHandler(OpenEnvSessionCloseSchema, async (message) => {
      const id = message.params.session_id;
      if (!this.openEnvSessions.delete(id)) throw new McpError(ErrorCode.InvalidParams, `Unknown session_id: ${id.slice(0, 255)}`);
      await this.parts.registry.close(id);
      return { session_id: id, closed: true };
    });
    response.on("close", () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }

  /**
   * Lists every hosted tool environment's own tools (issue 31): by their names when the server hosts
   * one tool environment (and no name collides with the endpoint's tools), else as
   * `<environment>.<tool>`. A call is the session's next step, written as the `<tool_call>` markup a
   * Solver writes and applied by `stepReply`, so it is validated and played exactly as one.
   */
  private registerEnvironmentTools(server: McpServer, call: (work: (served: ServedSession) => unknown) => Promise<CallToolResult>): void {
    for (const tool of this.environmentTools()) {
      server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, (args: Record<string, unknown>) =>
        call((served) => {
          if (served.state().env_id !== tool.environment.id) throw new ServeRequestError("invalid_request", `${tool.name} is a tool of ${tool.environment.name}: reset {"env": "${tool.environment.name}"} first`);
          return served.step({ message: renderToolCall({ name: tool.call, arguments: args }) });
        }),
      );
    }
  }

  /** The hosted tool environments' tools as MCP tools, converted once (a stateless request builds a server per request). */
  private environmentTools(): readonly EnvironmentTool[] {
    if (this.toolSpecs !== null) return this.toolSpecs;
    const environments = this.parts.catalog.all().filter((environment) => environment.package.manifest.tools !== undefined);
    this.toolSpecs = environments.flatMap((environment) =>
      (environment.package.manifest.tools ?? []).map((tool): EnvironmentTool => {
        let inputSchema: z.ZodType;
        try {
          inputSchema = z.fromJSONSchema(tool.parameters as Parameters<typeof z.fromJSONSchema>[0]);
        } catch {
          inputSchema = z.record(z.string(), z.unknown()); // stepReply still validates the arguments against the tool's own schema
        }
        return {
          name: environments.length === 1 && !ENDPOINT_TOOLS.has(tool.name) ? tool.name : `${environment.name}.${tool.name}`,
          call: tool.name,
          description: `${tool.description} (a tool of ${environment.name}: reset that environment first)`,
          inputSchema: inputSchema as z.ZodObject,
          environment,
        };
      }),
    );
    return this.toolSpecs;
  }

  /** An MCP server whose tools play the session `session()` gives (it throws a ServeRequestError when there is none). */
  private server(session: () => ServedSession): McpServer {
    const server = new McpServer({ name: "envforge", version: this.parts.version }, { capabilities: { tools: {} } });
    const call = async (work: (served: ServedSession) => unknown): Promise<CallToolResult> => {
      try {
        const answer = (await work(session())) as Record<string, unknown>;
        const observation = answer.observation as { text?: unknown } | undefined;
        const text = typeof observation?.text === "string" ? observation.text : JSON.stringify(answer);
        return { content: [{ type: "text", text }], structuredContent: answer };
      } catch (error) {
        const refusal = asServeError(error);
        return { isError: true, content: [{ type: "text", text: `${refusal.problem}: ${refusal.message}` }], structuredContent: { reason: refusal.problem, code: PROBLEM_ANSWERS[refusal.problem].code, message: refusal.message } };
      }
    };
    server.registerTool(
      "reset",
      {
        description: "Start an episode: the environment builds an instance from the seed at the level and answers its first observation. Resetting ends the episode under way.",
        inputSchema: {
          env: z.string().min(1).max(200).optional().describe("id or name of the environment (list_environments lists them); needed once when the server hosts several"),
          seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("instance seed; absent = a random one"),
          level: z.number().int().min(0).optional().describe("difficulty level of a levelled environment (0 = easiest; list_environments gives the count); absent = 0"),
        },
      },
      (args) => call((served) => served.reset(args)),
    );
    server.registerTool(
      "step",
      {
        description: "Act once in the episode under way: send the reply the observation asks for. Answers the next observation, the step's reward and whether the episode is done.",
        inputSchema: { message: z.string().describe("the agent's reply, passed to the environment's step(action) as a string") },
      },
      (args) => call((served) => served.step({ message: args.message })),
    );
    server.registerTool("state", { description: "The session's state: episode id, step count, environment, seed, level, done, total reward." }, () => call((served) => served.state()));
    this.registerEnvironmentTools(server, call);
    server.registerTool("list_environments", { description: "The environments this server hosts: id, name, title, and levels (count and what a level changes)." }, () =>
      call(() => ({
        environments: this.parts.catalog.all().map((environment) => ({
          id: environment.id,
          name: environment.name,
          title: environment.package.manifest.title,
          levels: environment.package.manifest.levels ?? { count: 1, description: "one level" },
        })),
      })),
    );
    return server;
  }
}

/** A tool environment's tool as the endpoint lists it. */
interface EnvironmentTool {
  /** The MCP tool name (the tool's, or `<environment>.<tool>`). */
  readonly name: string;
  /** The name the environment knows it by. */
  readonly call: string;
  readonly description: string;
  readonly inputSchema: z.ZodObject;
  readonly environment: ServedEnvironment;
}

/** The endpoint's own tools; an environment tool with one of these names is listed as `<environment>.<tool>`. */
const ENDPOINT_TOOLS: ReadonlySet<string> = new Set(["reset", "step", "state", "list_environments"]);

/** The `params.session_id` of a single JSON-RPC request (OpenEnv's HTTP MCP client names its session there), or null. */
function openEnvSessionId(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return null;
  const id = (params as { session_id?: unknown }).session_id;
  return typeof id === "string" && id !== "" && id.length <= 255 ? id : null;
}

/** A refusal as a JSON-RPC error of the SDK (capacity and drain are the server's; the rest the client's). */
function asMcpError(error: ServeRequestError): McpError {
  const serverSide = PROBLEM_ANSWERS[error.problem].status >= 500;
  return new McpError(serverSide ? ErrorCode.InternalError : ErrorCode.InvalidRequest, `${error.problem}: ${error.message}`, { reason: error.problem });
}

/**
 * Gives a request that accepts any media type the Accept header the SDK's transport requires
 * (it checks for both JSON and event streams literally). `*` `/` `*` or no Accept at all accepts
 * both by HTTP's rules (RFC 9110 §12.5.1); OpenEnv's own client sends that.
 */
function acceptJsonAndEvents(request: IncomingMessage): void {
  const accept = request.headers.accept;
  if (accept !== undefined && !accept.includes("*/*")) return;
  request.headers.accept = MCP_ACCEPT;
  const index = request.rawHeaders.findIndex((name, position) => position % 2 === 0 && name.toLowerCase() === "accept");
  if (index >= 0) request.rawHeaders[index + 1] = MCP_ACCEPT;
  else request.rawHeaders.push("Accept", MCP_ACCEPT);
}
