import type { Route } from "./router.js";
import { MCP_PATH } from "./mcp-endpoint.js";

/**
 * The server's OpenAPI 3.1 document (`GET /openapi.json`): every HTTP route with its methods, and
 * `/mcp` (POST, DELETE). OpenEnv's runtime check (`openenv validate --url`) reads `info.version`
 * and decides the server's mode from `paths`: `/reset`, `/step` and `/state` mean simulation mode.
 *
 * @param routes the server's HTTP routes (`:name` segments become `{name}` path parameters)
 * @param version envforge's version, as `info.version`
 */
export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.pattern.replace(/:([A-Za-z_]+)/g, "{$1}");
    const parameters = [...route.pattern.matchAll(/:([A-Za-z_]+)/g)].map((match) => ({ name: match[1], in: "path", required: true, schema: { type: "string" } }));
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: { "200": { description: "the answer (JSON)" }, default: { description: "a refusal: {detail, code, reason}" } },
    };
  }
  paths[MCP_PATH] = {
    post: { summary: "MCP JSON-RPC (streamable HTTP, JSON answers; OpenEnv's openenv/session/* methods too)", responses: { "200": { description: "a JSON-RPC answer" } } },
    delete: { summary: "end an MCP session (Mcp-Session-Id)", responses: { "200": { description: "closed" } } },
  };
  return { openapi: "3.1.0", info: { title: "envforge environment server", version }, paths };
}
