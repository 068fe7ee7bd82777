import { z } from "zod";
import { toPackageDocument } from "../adapters/package-files/index.js";
import { levelCount, ServeRequestError } from "../spec/index.js";
import type { EnvironmentCatalog, ServedEnvironment } from "./catalog.js";
import { EpisodesRequestSchema, VerifyRequestSchema, type EpisodeRunner } from "./batch-episodes.js";
import type { Route } from "./router.js";
import type { SessionRegistry } from "./session-registry.js";
import { parseRequest } from "./validation.js";

/** What the `/v1` routes use. */
export interface EnvforgeRouteParts {
  readonly catalog: EnvironmentCatalog;
  readonly registry: SessionRegistry;
  readonly runner: EpisodeRunner;
  readonly capacity: number;
  /** Milliseconds since the epoch when the server started. */
  readonly startedAt: number;
  readonly now: () => number;
}

/** One environment in a listing: what a trainer picks by (no sources; `GET /v1/envs/{id}` has them). */
export interface EnvironmentSummary {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly interaction: "single-turn" | "multi-turn";
  readonly skills: readonly string[];
  readonly scenario: string;
  readonly maxTurns: number;
  readonly rewardRange: readonly [number, number];
  readonly passThreshold: number;
  /**
   * The environment's levels: `count` (reset data `{"level": 0..count−1}`) and what a higher level
   * changes; a family of one level is `{ count: 1, description: null }`.
   */
  readonly levels: { readonly count: number; readonly description: string | null };
  /** The level controller's current window in a run store (`ServedEnvironment.levelWindow`); null otherwise. */
  readonly levelWindow: { readonly low: number; readonly high: number } | null;
  readonly origin: "seed" | "designer" | "evolution";
  readonly scores: ServedEnvironment["scores"];
  readonly round: number | null;
  readonly lineage: ServedEnvironment["lineage"];
}

/** The listing entry of an environment. */
export function summarise(environment: ServedEnvironment): EnvironmentSummary {
  const manifest = environment.package.manifest;
  return {
    id: environment.id,
    name: environment.name,
    title: manifest.title,
    interaction: manifest.interaction,
    skills: manifest.skills,
    scenario: manifest.scenario,
    maxTurns: manifest.maxTurns,
    rewardRange: manifest.rewardRange,
    passThreshold: manifest.passThreshold,
    levels: { count: levelCount(manifest), description: manifest.levels?.description ?? null },
    levelWindow: environment.levelWindow ?? null,
    origin: manifest.provenance.origin,
    scores: environment.scores,
    round: environment.round,
    lineage: environment.lineage,
  };
}

const count = (min: number) => z.coerce.number().int().min(min);

/** Query of `GET /v1/envs`. */
export const EnvironmentQuerySchema = z
  .object({
    skill: z.string().min(1).max(60).optional(),
    name: z.string().min(1).max(64).optional(),
    interaction: z.enum(["single-turn", "multi-turn"]).optional(),
    origin: z.enum(["seed", "designer", "evolution"]).optional(),
    lineage: z.string().min(1).max(200).optional(),
    minRegret: z.coerce.number().finite().optional(),
    limit: count(1).max(10_000).optional(),
    offset: count(0).optional(),
  })
  .strict();

/**
 * envforge's own routes: `GET /v1/envs` (filters `skill`, `name`, `interaction`, `origin`,
 * `lineage`, `minRegret`, paging `limit`/`offset`), `GET /v1/envs/{id or name}` (summary and the
 * package document), `POST /v1/episodes` (whole episodes from action lists), `POST /v1/verify`
 * (scores of answers to single-turn instances), `GET /v1/frontier` (the frontier scheduler's
 * current set), `GET /v1/stats` (sessions held, capacity, draining).
 */
export function envforgeRoutes(parts: EnvforgeRouteParts): Route[] {
  return [
    {
      method: "GET",
      pattern: "/v1/envs",
      handle: ({ url }) => {
        const query = parseRequest(EnvironmentQuerySchema, Object.fromEntries(url.searchParams), "query");
        const { total, environments } = parts.catalog.list(query);
        return { status: 200, body: { total, environments: environments.map(summarise) } };
      },
    },
    {
      method: "GET",
      pattern: "/v1/envs/:id",
      handle: ({ params }) => {
        const environment = parts.catalog.resolve(params.id ?? "");
        // a terminal task's package would hand out its tests and solution (the expected answers): its manifest only
        const pkg = environment.package;
        return { status: 200, body: { ...summarise(environment), ...(pkg.terminal === undefined ? { package: toPackageDocument(pkg) } : { manifest: pkg.manifest }) } };
      },
    },
    {
      method: "POST",
      pattern: "/v1/episodes",
      handle: async ({ body }) => {
        if (parts.registry.isDraining) throw new ServeRequestError("draining", "the server is shutting down and starts no new episode");
        const request = parseRequest(EpisodesRequestSchema, await body(), "episodes request");
        return { status: 200, body: { episodes: await parts.runner.play(request) } };
      },
    },
    {
      method: "POST",
      pattern: "/v1/verify",
      handle: async ({ body }) => {
        const request = parseRequest(VerifyRequestSchema, await body(), "verify request");
        return { status: 200, body: { results: await parts.runner.verify(request) } };
      },
    },
    {
      method: "GET",
      pattern: "/v1/frontier",
      handle: () => {
        const frontier = parts.catalog.frontier();
        return { status: 200, body: { scheduled: frontier !== null, environments: (frontier ?? []).map(summarise) } };
      },
    },
    {
      method: "GET",
      pattern: "/v1/stats",
      handle: () => ({
        status: 200,
        body: {
          sessions: parts.registry.size,
          ...parts.registry.counts(),
          capacity: parts.capacity,
          draining: parts.registry.isDraining,
          environments: parts.catalog.size,
          uptimeSeconds: (parts.now() - parts.startedAt) / 1000,
        },
      }),
    },
  ];
}
