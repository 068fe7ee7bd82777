import type { IncomingMessage } from "node:http";
import { ServeRequestError } from "../spec/index.js";

/** What a route handler gets. */
export interface RouteContext {
  readonly request: IncomingMessage;
  readonly url: URL;
  /** Values of the pattern's `:name` segments. */
  readonly params: Readonly<Record<string, string>>;
  /** The JSON body, read within the body limit. */
  readonly body: () => Promise<unknown>;
}

/** A route's answer: status and JSON body. */
export interface RouteAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** One route: method, path pattern (`/v1/envs/:id`) and handler; handlers throw {@link ServeRequestError} for refusals. */
export interface Route {
  readonly method: "GET" | "POST";
  readonly pattern: string;
  readonly handle: (context: RouteContext) => Promise<RouteAnswer> | RouteAnswer;
}

/**
 * The route for a method and path, with its parameters.
 * @throws ServeRequestError `not_found` when no route has the path, `method_not_allowed` (405, with the allowed methods) when the path exists for other methods
 */
export function matchRoute(routes: readonly Route[], method: string, pathname: string): { route: Route; params: Record<string, string> } {
  const segments = pathname.split("/").filter((segment) => segment !== "");
  const allowed = new Set<string>();
  for (const route of routes) {
    const params = matchPattern(route.pattern, segments);
    if (params === null) continue;
    if (route.method === method || (method === "HEAD" && route.method === "GET")) return { route, params };
    allowed.add(route.method);
    if (route.method === "GET") allowed.add("HEAD");
  }
  if (allowed.size > 0) throw new ServeRequestError("method_not_allowed", `method ${method.slice(0, 20)} is not allowed on ${pathname.slice(0, 200)}`, { allow: [...allowed] });
  throw new ServeRequestError("not_found", `no route ${method} ${pathname.slice(0, 200)}`);
}

function matchPattern(pattern: string, segments: readonly string[]): Record<string, string> | null {
  const parts = pattern.split("/").filter((part) => part !== "");
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] as string;
    if (part.startsWith(":")) {
      try {
        params[part.slice(1)] = decodeURIComponent(segment);
      } catch {
        return null;
      }
    } else if (part !== segment) {
      return null;
    }
  }
  return params;
}
