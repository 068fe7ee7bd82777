import { z } from "zod";
import { ServeRequestError } from "../spec/index.js";
import type { EnvironmentCatalog } from "./catalog.js";
import { ResetDataSchema, StepRequestSchema, wireSchemas } from "./openenv-wire.js";
import type { Route } from "./router.js";
import type { SessionRegistry } from "./session-registry.js";
import { parseRequest } from "./validation.js";

/** What the OpenEnv HTTP routes use. */
export interface OpenEnvRouteParts {
  readonly catalog: EnvironmentCatalog;
  readonly registry: SessionRegistry;
  /** Id of a new HTTP episode. */
  readonly newId: () => string;
  /** envforge's version, for `/metadata`. */
  readonly version: string;
}

const StateQuerySchema = z.object({ episode_id: z.string().min(1).max(255) }).strict();
const MetadataQuerySchema = z.object({ env: z.string().min(1).max(200).optional() }).strict();

/**
 * OpenEnv's HTTP routes. `GET /health`, `GET /metadata` (OpenEnv's `EnvironmentMetadata`, whose
 * keys are fixed: `?env=` for one environment's, its levels said in the description), `GET /schema`; and `POST /reset`, `POST /step`, `GET /state`,
 * which in OpenEnv play a throw-away environment per request but here hold an HTTP episode:
 * `/reset` answers the episode id in `observation.metadata.episode_id`, and `/step` (body
 * `{ "action": {"message": …}, "episode_id": … }`) and `/state?episode_id=` continue it.
 */
export function openEnvRoutes(parts: OpenEnvRouteParts): Route[] {
  return [
    {
      method: "GET",
      pattern: "/health",
      handle: () => (parts.registry.isDraining ? { status: 503, body: { status: "degraded" } } : { status: 200, body: { status: "healthy" } }),
    },
    {
      method: "GET",
      pattern: "/metadata",
      handle: ({ url }) => {
        const query = parseRequest(MetadataQuerySchema, Object.fromEntries(url.searchParams), "query");
        if (query.env !== undefined) {
          const environment = parts.catalog.resolve(query.env);
          const manifest = environment.package.manifest;
          const levels = manifest.levels === undefined ? "" : ` Levels: ${manifest.levels.count} (reset data {"level": 0..${manifest.levels.count - 1}}; default 0): ${manifest.levels.description}.`;
          return {
            status: 200,
            body: { name: environment.name, description: `${manifest.title}. ${manifest.description}${levels}`, readme_content: null, version: environment.id, author: null, documentation_url: null },
          };
        }
        const names = parts.catalog.all().map((environment) => environment.name);
        return {
          status: 200,
          body: {
            name: "envforge",
            description: `envforge environment server: ${names.length} environment(s) (${names.slice(0, 20).join(", ")}${names.length > 20 ? ", …" : ""}); choose one with reset data {"env": <id or name>} (and {"level": <n>} for a levelled one; GET /v1/envs lists each one's levels); actions are {"message": <text>}`,
            readme_content: null,
            version: parts.version,
            author: null,
            documentation_url: null,
          },
        };
      },
    },
    { method: "GET", pattern: "/schema", handle: () => ({ status: 200, body: wireSchemas() }) },
    {
      method: "POST",
      pattern: "/reset",
      handle: async ({ body }) => {
        const data = parseRequest(ResetDataSchema, await body(), "reset request");
        const id = data.episode_id ?? parts.newId();
        const existing = parts.registry.touch(id);
        const session = existing ?? parts.registry.open(id, "http");
        try {
          return { status: 200, body: await session.reset({ ...data, episode_id: id }) };
        } catch (error) {
          if (existing === undefined) await parts.registry.close(id); // a refused first reset holds no slot
          throw error;
        }
      },
    },
    {
      method: "POST",
      pattern: "/step",
      handle: async ({ body }) => {
        const request = parseRequest(StepRequestSchema, await body(), "step request");
        if (request.episode_id == null) {
          throw new ServeRequestError("step_before_reset", "HTTP /step needs the episode_id that /reset answered (observation.metadata.episode_id); WebSocket /ws sessions need none");
        }
        const session = parts.registry.touch(request.episode_id);
        if (session === undefined) throw new ServeRequestError("not_found", `no HTTP episode ${request.episode_id} (expired, or never reset)`);
        return { status: 200, body: await session.step(request.action) };
      },
    },
    {
      method: "GET",
      pattern: "/state",
      handle: ({ url }) => {
        const query = parseRequest(StateQuerySchema, Object.fromEntries(url.searchParams), "query (GET /state?episode_id=<id from /reset>)");
        const session = parts.registry.touch(query.episode_id);
        if (session === undefined) throw new ServeRequestError("not_found", `no HTTP episode ${query.episode_id} (expired, or never reset)`);
        return { status: 200, body: session.state() };
      },
    },
  ];
}
