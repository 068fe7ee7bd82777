import { existsSync, readFileSync } from "node:fs";

/** The lines of a run's `metrics.jsonl`, by kind. */
export interface MetricsLog {
  /** `{"kind":"round", …}` lines: trainer, seconds, phase seconds and step diagnostics per round. */
  readonly rounds: readonly Record<string, unknown>[];
  /** `{"kind":"trainer_step", …}` lines: loss, clip fraction, KL, tokens/s per optimiser step. */
  readonly trainerSteps: readonly Record<string, unknown>[];
  /** Lines that were not JSON objects (a line still being written counts until it is whole). */
  readonly skippedLines: number;
}

/**
 * Reads `metrics.jsonl` at `path`; a missing file is an empty log. Lines that do not parse are
 * counted, not fatal: a run appending a line while it is read leaves a partial last line.
 */
export function readMetricsLog(path: string): MetricsLog {
  if (!existsSync(path)) return { rounds: [], trainerSteps: [], skippedLines: 0 };
  const rounds: Record<string, unknown>[] = [];
  const trainerSteps: Record<string, unknown>[] = [];
  let skippedLines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skippedLines += 1;
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      skippedLines += 1;
      continue;
    }
    const record = value as Record<string, unknown>;
    if (record.kind === "trainer_step") trainerSteps.push(record);
    else if (record.kind === "round") rounds.push(record);
    else skippedLines += 1;
  }
  return { rounds, trainerSteps, skippedLines };
}
