import type { StoreRow } from "../adapters/store/store-tables.js";
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import type { RoundReport } from "../spec/index.js";
import { readMetricsLog, type MetricsLog } from "./metrics-log.js";
import type { RunFolder } from "./run-folders.js";
import { StoreProblemError, type StoreProblem } from "./store-problem.js";
import { parseColumn, readStoreSchema, type StoreSchema } from "./store-schema.js";
import { withStoreSnapshot, type SnapshotMode } from "./store-snapshot.js";

/**
 * Where a folder stands: `running` (a round is unfinished and a writer holds the store),
 * `interrupted` (a round is unfinished and nothing writes: resume it), `done` (every configured
 * round finished), `stopped` (fewer rounds than configured, none running), `evolution` (an
 * evolution folder), `problem` (the store cannot be shown: see `problem`).
 */
export type RunStatus = "running" | "interrupted" | "done" | "stopped" | "evolution" | "problem";

/** One line of the runs list. */
export interface RunSummary {
  readonly id: string;
  readonly path: string;
  readonly kind: "run" | "evolution" | "unknown";
  readonly status: RunStatus;
  /** `model.spec` of the stored config (or the `model` meta value), null when unknown. */
  readonly model: string | null;
  /** `trainer.backend` of the stored config, null when unknown. */
  readonly trainer: string | null;
  readonly roundsDone: number;
  /** `rounds` of the stored config, null when unknown. */
  readonly roundsPlanned: number | null;
  readonly admitted: number;
  readonly environments: number;
  readonly designs: number;
  readonly lineages: number;
  /** The newest round with a report, or null. */
  readonly lastStep: number | null;
  /** ISO-8601 time the store last changed, or null. */
  readonly updatedAt: string | null;
  readonly mode: SnapshotMode | null;
  /** Set when the store cannot be shown. */
  readonly problem: { readonly kind: StoreProblem; readonly message: string } | null;
  /** Older-schema and snapshot warnings. */
  readonly notices: readonly string[];
}

/** A round row of a run. */
export interface RoundView {
  readonly round: number;
  readonly status: string;
  readonly solverPhaseDone: boolean;
  readonly report: RoundReport | null;
}

/** An environment in a run's memory, as listed on the run page. */
export interface EnvironmentListItem {
  readonly id: string;
  readonly name: string;
  readonly title: string | null;
  readonly origin: string;
  readonly parentId: string | null;
  readonly generation: number;
  readonly round: number | null;
  readonly scores: Record<string, number> | null;
  readonly episodes: number;
}

/** Everything on a run page: the summary, rounds, metrics log and environments. */
export interface RunDetail {
  readonly summary: RunSummary;
  readonly rounds: readonly RoundView[];
  readonly metrics: MetricsLog;
  readonly environments: readonly EnvironmentListItem[];
}

const updatedAt = (folder: RunFolder): string | null => {
  const times = [folder.storePath, `${folder.storePath}-wal`, folder.metricsPath]
    .map((path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs)
    .filter((time): time is number => time !== undefined);
  return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
};

/** The summary of a folder whose store cannot be shown. */
export function problemSummary(folder: RunFolder, error: StoreProblemError): RunSummary {
  return {
    id: folder.id,
    path: folder.path,
    kind: "unknown",
    status: "problem",
    model: null,
    trainer: null,
    roundsDone: 0,
    roundsPlanned: null,
    admitted: 0,
    environments: 0,
    designs: 0,
    lineages: 0,
    lastStep: null,
    updatedAt: updatedAt(folder),
    mode: null,
    problem: { kind: error.problem, message: error.message },
    notices: [],
  };
}

function count(db: Database.Database, sql: string): number {
  return (db.prepare(sql).get() as { n: number }).n;
}

function meta(db: Database.Database, key: string): unknown {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return parseColumn<unknown>(row?.value, undefined);
}

function summarise(db: Database.Database, schema: StoreSchema, folder: RunFolder, mode: SnapshotMode, warning: string | null): RunSummary {
  // a run stores its config under `config`; an evolution under `evolution.config`
  const evolution = meta(db, "evolution") as { config?: unknown } | undefined;
  const config = (meta(db, "config") ?? evolution?.config ?? {}) as { model?: { spec?: unknown }; trainer?: { backend?: unknown }; rounds?: unknown };
  const model = typeof config.model?.spec === "string" ? config.model.spec : typeof meta(db, "model") === "string" ? (meta(db, "model") as string) : null;
  const rounds = db.prepare("SELECT round, status, report IS NOT NULL AS reported FROM rounds ORDER BY round").all() as { round: number; status: string; reported: number }[];
  const lineages = schema.tables.has("lineages") ? count(db, "SELECT count(*) AS n FROM lineages") : 0;
  const roundsDone = rounds.filter((round) => round.status === "done").length;
  const roundsPlanned = typeof config.rounds === "number" && evolution === undefined ? config.rounds : null;
  const unfinished = rounds.some((round) => round.status !== "done");
  const kind = rounds.length === 0 && (lineages > 0 || evolution !== undefined) ? "evolution" : "run";
  const status: RunStatus =
    kind === "evolution" ? "evolution" : unfinished ? (mode === "live" ? "running" : "interrupted") : roundsPlanned !== null && roundsDone < roundsPlanned ? (mode === "live" ? "running" : "stopped") : "done";
  return {
    id: folder.id,
    path: folder.path,
    kind,
    status,
    model,
    trainer: evolution === undefined && typeof config.trainer?.backend === "string" ? config.trainer.backend : null,
    roundsDone,
    roundsPlanned,
    admitted: count(db, "SELECT count(*) AS n FROM designs WHERE environment_id IS NOT NULL"),
    environments: count(db, "SELECT count(*) AS n FROM environments"),
    designs: count(db, "SELECT count(*) AS n FROM designs"),
    lineages,
    lastStep: rounds.filter((round) => round.reported === 1).at(-1)?.round ?? null,
    updatedAt: updatedAt(folder),
    mode,
    problem: null,
    notices: [...(warning === null ? [] : [warning]), ...schema.notices],
  };
}

/** The runs-list line of `folder`; a store that cannot be shown gives a `problem` summary, never a throw. */
export function readRunSummary(folder: RunFolder): RunSummary {
  try {
    return withStoreSnapshot(folder.storePath, ({ db, mode, warning }) => summarise(db, readStoreSchema(db, folder.storePath), folder, mode, warning));
  } catch (error) {
    if (error instanceof StoreProblemError) return problemSummary(folder, error);
    return problemSummary(folder, new StoreProblemError("corrupt", `${folder.storePath} could not be read: ${(error as Error).message}`, { cause: error }));
  }
}

/**
 * The run page of `folder`: summary, every round with its report, the metrics log and the
 * environments in memory.
 * @throws StoreProblemError when the store cannot be shown
 */
export function readRunDetail(folder: RunFolder): RunDetail {
  return withStoreSnapshot(folder.storePath, ({ db, mode, warning }) => {
    const schema = readStoreSchema(db, folder.storePath);
    const rounds = (db.prepare("SELECT round, status, solver_phase_done, report FROM rounds ORDER BY round").all() as { round: number; status: string; solver_phase_done: number; report: string | null }[]).map(
      (row): RoundView => ({ round: row.round, status: row.status, solverPhaseDone: row.solver_phase_done === 1, report: parseColumn<RoundReport | null>(row.report, null) }),
    );
    const episodeCounts = new Map(
      (db.prepare("SELECT environment_id AS id, count(*) AS n FROM episodes GROUP BY environment_id").all() as { id: string; n: number }[]).map((row) => [row.id, row.n]),
    );
    const environments = (
      db.prepare("SELECT id, name, origin, parent_id, generation, round, package, scores FROM environments ORDER BY seq").all() as Omit<StoreRow<"environments">, "seq" | "designer_reward">[]
    ).map((row): EnvironmentListItem => {
      const manifest = parseColumn<{ manifest?: { title?: unknown } }>(row.package, {}).manifest;
      return {
        id: row.id,
        name: row.name,
        title: typeof manifest?.title === "string" ? manifest.title : null,
        origin: row.origin,
        parentId: row.parent_id,
        generation: row.generation,
        round: row.round,
        scores: parseColumn<Record<string, number> | null>(row.scores, null),
        episodes: episodeCounts.get(row.id) ?? 0,
      };
    });
    return { summary: summarise(db, schema, folder, mode, warning), rounds, metrics: readMetricsLog(folder.metricsPath), environments };
  });
}
