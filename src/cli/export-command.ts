import { relative } from "node:path";
import { exportTensorBoard, type TensorBoardExport } from "../dashboard/index.js";

/** Flags of `envforge export tensorboard`. */
export interface ExportTensorBoardFlags {
  /** The run folder (`envforge run --out`). */
  readonly out: string;
  /** TensorBoard log folder. @default `<out>/tensorboard` */
  readonly to?: string;
  /** Print the {@link TensorBoardExport} as JSON. @default false */
  readonly json?: boolean;
}

const shown = (path: string): string => {
  const fromHere = relative(process.cwd(), path);
  return fromHere === "" ? "." : fromHere.startsWith("..") ? path : fromHere;
};

/** The human summary of an export: what was written, what was skipped, how to view it. */
export function formatTensorBoardExport(result: TensorBoardExport): string {
  const { skipped } = result;
  const skippedParts = [
    skipped.lines > 0 ? `${skipped.lines} unreadable metrics.jsonl lines` : null,
    skipped.linesWithoutStep > 0 ? `${skipped.linesWithoutStep} lines without a step` : null,
    skipped.nullValues > 0 ? `${skipped.nullValues} null values` : null,
    skipped.nonNumericValues > 0 ? `${skipped.nonNumericValues} labels or non-numeric values` : null,
    skipped.nonFiniteValues > 0 ? `${skipped.nonFiniteValues} NaN or infinite values` : null,
  ].filter((part): part is string => part !== null);
  const rounds = result.roundsFromLog + result.roundsFromStore;
  return [
    `envforge export tensorboard: ${result.points} scalars under ${result.tags.length} tags (${rounds} rounds${result.roundsFromStore > 0 ? `, ${result.roundsFromStore} from the store` : ""}, ${result.trainerSteps} trainer steps) -> ${shown(result.eventFile)}` +
      (result.replaced > 0 ? ` (replaced the previous export)` : ""),
    ...(skippedParts.length > 0 ? [`skipped: ${skippedParts.join(", ")}`] : []),
    ...result.notices.map((notice) => `note: ${notice}`),
    `view: tensorboard --logdir ${shown(result.logDir)}`,
  ].join("\n");
}

/**
 * `envforge export tensorboard`: writes the run's per-step metrics as one TensorBoard event file
 * and prints what it wrote. Returns exit code 0; bad input throws ConfigError (exit 2).
 */
export async function exportTensorBoardCommand(flags: ExportTensorBoardFlags): Promise<number> {
  const result = await exportTensorBoard({ runDir: flags.out, ...(flags.to === undefined ? {} : { logDir: flags.to }) });
  process.stdout.write(`${flags.json === true ? JSON.stringify(result, null, 2) : formatTensorBoardExport(result)}\n`);
  return 0;
}
