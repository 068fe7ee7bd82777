import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { ConfigError, type RoundReport } from "../../spec/index.js";
import { readMetricsLog, type MetricsLog } from "../metrics-log.js";
import { FOLDER_FILES, type RunFolder } from "../run-folders.js";
import { readRunDetail } from "../run-overview.js";
import { StoreProblemError } from "../store-problem.js";
import { writeEventFile, type EventFileWriterOptions } from "./event-file-writer.js";
import { EventWriteError } from "./event-write-error.js";
import { scalarSeries, type SkippedCounts } from "./scalar-series.js";

/** The log folder of a run's export when none is given: `RUN_DIR/tensorboard`. */
export const DEFAULT_TENSORBOARD_FOLDER = "tensorboard";

/** The name an export's event file ends with; a re-export removes only files that end so. */
export const EVENT_FILE_SUFFIX = ".envforge";

/** An event file an export wrote (a re-export replaces only these). */
const isExportFile = (name: string): boolean => name.includes("tfevents") && name.endsWith(EVENT_FILE_SUFFIX);

/** Options of {@link exportTensorBoard}. */
export interface TensorBoardExportOptions extends EventFileWriterOptions {
  /** The run folder (`envforge run --out`): its `metrics.jsonl` and `envforge.db` are read, never written. */
  readonly runDir: string;
  /** TensorBoard log folder; the event file goes into `<logDir>/<run folder name>/`. @default `<runDir>/tensorboard` */
  readonly logDir?: string;
  /** Wall time of points whose metrics line has no `time` (runs written before lines carried one). @default () => new Date() */
  readonly now?: () => Date;
}

/** What {@link exportTensorBoard} wrote. */
export interface TensorBoardExport {
  /** The event file. */
  readonly eventFile: string;
  /** The folder to give `tensorboard --logdir`. */
  readonly logDir: string;
  /** The TensorBoard run name: the run folder's name. */
  readonly runName: string;
  /** Every tag written, sorted. */
  readonly tags: readonly string[];
  /** Scalars written. */
  readonly points: number;
  readonly roundsFromLog: number;
  readonly roundsFromStore: number;
  readonly trainerSteps: number;
  readonly skipped: SkippedCounts;
  /** Earlier exports' event files removed (a re-export replaces them). */
  readonly replaced: number;
  /** What could not be read, e.g. a store that is missing or corrupt (its round reports are then left out). */
  readonly notices: readonly string[];
}

/** The run's metrics log and round reports, read-only; a store that cannot be read is a notice. */
function readRun(folder: RunFolder): { metrics: MetricsLog; reports: RoundReport[]; notices: string[] } {
  if (!existsSync(folder.storePath)) {
    return { metrics: readMetricsLog(folder.metricsPath), reports: [], notices: [`no store (${folder.storePath}): exported metrics.jsonl only, without win rates and admission counts`] };
  }
  try {
    const detail = readRunDetail(folder);
    const reports = detail.rounds.flatMap((round) => (round.report === null ? [] : [round.report]));
    return { metrics: detail.metrics, reports, notices: [...detail.summary.notices] };
  } catch (error) {
    // as the runs list does: any failure to read the store is a problem with that store, not a crash
    const message = error instanceof StoreProblemError ? error.message : `${folder.storePath} could not be read: ${(error as Error).message}`;
    return { metrics: readMetricsLog(folder.metricsPath), reports: [], notices: [`${message}: exported metrics.jsonl only, without win rates and admission counts`] };
  }
}

/**
 * Exports a run's per-step metrics (`metrics.jsonl`, and the round reports in `envforge.db`) as
 * TensorBoard scalars ({@link scalarSeries} says which tags) into one event file
 * `<logDir>/<run name>/events.out.tfevents.<time>.<host>.envforge`. The file is written in a
 * temporary folder first, then copied under a name TensorBoard ignores, renamed in place, and the
 * previous export's event files removed, so re-running replaces the export (no duplicated points)
 * and a failed write leaves the previous one. The store is opened read-only (as the dashboard does); nothing in the run folder
 * is written except under the log folder.
 *
 * @throws ConfigError when `runDir` does not exist or is not a run folder (neither `metrics.jsonl`
 *   nor `envforge.db`), when it has no numeric metric to export yet, or when the trainer's Python
 *   with tensorboardX is missing (run ./scripts/setup.sh), or the log folder cannot be made (e.g. `logDir` is a file)
 * @throws EventWriteError when the writer fails
 */
export async function exportTensorBoard(options: TensorBoardExportOptions): Promise<TensorBoardExport> {
  const runDir = resolve(options.runDir);
  if (!existsSync(runDir)) throw new ConfigError(`no run folder at ${runDir}`);
  if (!statSync(runDir).isDirectory()) throw new ConfigError(`${runDir} is not a folder; pass the run folder (envforge run --out)`);
  const runName = basename(runDir).replace(/[^A-Za-z0-9._-]/g, "_") || "run";
  const folder: RunFolder = {
    id: runName,
    path: runDir,
    storePath: join(runDir, FOLDER_FILES.store),
    metricsPath: join(runDir, FOLDER_FILES.metrics),
    reportPath: join(runDir, FOLDER_FILES.report),
  };
  if (!existsSync(folder.metricsPath) && !existsSync(folder.storePath)) {
    throw new ConfigError(`${runDir} is not a run folder: it holds neither ${FOLDER_FILES.metrics} nor ${FOLDER_FILES.store}`);
  }
  const { metrics, reports, notices } = readRun(folder);
  const series = scalarSeries({ metrics, reports, ...(options.now ? { now: options.now } : {}) });
  if (series.points.length === 0) {
    const { lines, linesWithoutStep, nonFiniteValues } = series.skipped;
    throw new ConfigError(
      `${runDir} has no numeric metric to export yet (${metrics.rounds.length} round and ${metrics.trainerSteps.length} trainer_step lines, ${reports.length} round reports; ` +
        `skipped ${lines} unreadable lines, ${linesWithoutStep} without a step, ${nonFiniteValues} non-finite values)${notices.length > 0 ? `; ${notices.join("; ")}` : ""}`,
    );
  }
  const logDir = resolve(options.logDir ?? join(runDir, DEFAULT_TENSORBOARD_FOLDER));
  const target = join(logDir, runName);
  // written outside the log folder, so a TensorBoard watching it never sees a half-written run
  const staging = mkdtempSync(join(tmpdir(), "envforge-tensorboard-"));
  try {
    await writeEventFile(staging, series.points, options);
    const written = readdirSync(staging).filter(isExportFile);
    if (written.length !== 1) throw new EventWriteError(`the TensorBoard writer left ${written.length} event files in ${staging}, expected 1`);
    const name = written[0] as string;
    try {
      mkdirSync(target, { recursive: true });
    } catch (error) {
      throw new ConfigError(`cannot make the log folder ${target} (${(error as Error).message}); pass --to a folder, or a path where one can be made`, { cause: error });
    }
    const previous = readdirSync(target).filter(isExportFile);
    // copied under a name TensorBoard does not read ("tfevents" is what it looks for), then renamed in place
    const partial = join(target, `.envforge-export-${process.pid}.partial`);
    copyFileSync(join(staging, name), partial);
    const eventFile = join(target, name);
    renameSync(partial, eventFile);
    for (const old of previous) if (old !== name) rmSync(join(target, old), { force: true });
    return {
      eventFile,
      logDir,
      runName,
      tags: [...new Set(series.points.map((point) => point.tag))].sort(),
      points: series.points.length,
      roundsFromLog: series.roundsFromLog,
      roundsFromStore: series.roundsFromStore,
      trainerSteps: series.trainerSteps,
      skipped: series.skipped,
      replaced: previous.length,
      notices,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
