import { z } from "zod";
import type { Route } from "../server/router.js";
import { parseRequest } from "../server/validation.js";
import { ServeRequestError } from "../spec/index.js";
import { readDesigns } from "./design-list.js";
import { readEnvironmentDetail } from "./environment-detail.js";
import { readLineages } from "./lineage-tree.js";
import type { RunFolder } from "./run-folders.js";
import { readRunDetail, readRunSummary } from "./run-overview.js";

const RunParams = z.object({ run: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, "a run id from /api/runs") });
const EnvironmentParams = RunParams.extend({ environment: z.string().min(1).max(300) });

/**
 * The dashboard's JSON routes, all `GET` and read-only: `/api/runs` (the runs list),
 * `/api/runs/:run` (rounds, metrics, environments), `/api/runs/:run/designs`,
 * `/api/runs/:run/lineages`, `/api/runs/:run/environments/:environment`. Each validates its
 * parameters with one zod schema and calls one reader; a store that cannot be shown throws
 * `StoreProblemError`, which the server maps to a status in one place.
 *
 * @param folders the folders shown, read again per request
 */
export function dashboardRoutes(folders: () => readonly RunFolder[]): Route[] {
  const folderOf = (params: Readonly<Record<string, string>>): RunFolder => {
    const { run } = parseRequest(RunParams, params, "run id");
    const folder = folders().find((candidate) => candidate.id === run);
    if (folder === undefined) throw new ServeRequestError("not_found", `no run ${run} (see /api/runs)`);
    return folder;
  };
  return [
    { method: "GET", pattern: "/api/runs", handle: () => ({ status: 200, body: { runs: folders().map(readRunSummary) } }) },
    { method: "GET", pattern: "/api/runs/:run", handle: ({ params }) => ({ status: 200, body: readRunDetail(folderOf(params)) }) },
    { method: "GET", pattern: "/api/runs/:run/designs", handle: ({ params }) => ({ status: 200, body: { designs: readDesigns(folderOf(params)) } }) },
    { method: "GET", pattern: "/api/runs/:run/lineages", handle: ({ params }) => ({ status: 200, body: { lineages: readLineages(folderOf(params)) } }) },
    {
      method: "GET",
      pattern: "/api/runs/:run/environments/:environment",
      handle: ({ params }) => {
        const folder = folderOf(params);
        const { environment } = parseRequest(EnvironmentParams, params, "environment id");
        return { status: 200, body: readEnvironmentDetail(folder, environment) };
      },
    },
  ];
}
