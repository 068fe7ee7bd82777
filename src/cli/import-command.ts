import { availableParallelism } from "node:os";
import { DEFAULT_RLVE_LEVELS, importRlve, RLVE_REPORT_FILE, type RlveImportReport } from "../adapters/rlve/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { configSource, parseConfig, readConfigFile } from "../config/index.js";
import { ConfigError } from "../spec/index.js";
import { escapeControlCharacters, terminalJson } from "./terminal-text.js";

/** Sources `envforge import` reads. */
export const IMPORT_SOURCES = ["rlve"] as const;

/** Default output folder of `envforge import rlve` (ignored by git: RLVE's code is never committed). */
export const DEFAULT_RLVE_OUT = "envs/rlve";

/** Flags of `envforge import`. */
export interface ImportFlags {
  /** Output folder. @default {@link DEFAULT_RLVE_OUT} */
  readonly out?: string;
  /** Comma-separated RLVE identifiers or package names. */
  readonly only?: string;
  /** Levels to try per environment. @default {@link DEFAULT_RLVE_LEVELS} */
  readonly levels?: number;
  /** Environments probed at the same time. @default one per CPU core */
  readonly concurrency?: number;
  /** JSON config file; its `sandbox` section runs the level probe. */
  readonly config?: string;
  readonly json?: boolean;
}

/**
 * `envforge import SOURCE`: `rlve` turns RLVE's environments into package folders
 * ({@link importRlve}) and prints what it did (`--json`: the {@link RlveImportReport}).
 * Returns 0 when at least one environment was imported, else 1.
 * @throws ConfigError for an unknown source, unknown names, or a missing RLVE install (exit 2)
 */
export async function importCommand(source: string, flags: ImportFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  if (!(IMPORT_SOURCES as readonly string[]).includes(source)) throw new ConfigError(`unknown import source "${source}"; sources are ${IMPORT_SOURCES.join(", ")}`);
  const config = parseConfig(flags.config === undefined ? {} : readConfigFile(flags.config), configSource(flags.config));
  const only = flags.only?.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  const concurrency = flags.concurrency ?? availableParallelism();
  const sandbox = openSandbox({ ...config.sandbox, workers: Math.max(config.sandbox.workers, concurrency) }, (message) => process.stderr.write(`envforge: ${message}\n`));
  let report: RlveImportReport;
  try {
    report = await importRlve({
      sandbox,
      out: flags.out ?? DEFAULT_RLVE_OUT,
      levels: flags.levels ?? DEFAULT_RLVE_LEVELS,
      concurrency,
      ...(only === undefined ? {} : { only }),
      ...(flags.json || !process.stderr.isTTY ? {} : { onEnvironment: (done: number, total: number, identifier: string) => process.stderr.write(`\r${done}/${total} ${identifier}`.padEnd(60)) }),
    });
  } finally {
    await sandbox.close();
  }
  if (!flags.json && process.stderr.isTTY) process.stderr.write("\n");
  if (flags.json) {
    write(`${terminalJson(report)}\n`);
  } else {
    write(summary(report));
  }
  return report.imported.length > 0 ? 0 : 1;
}

function summary(report: RlveImportReport): string {
  const reasons = new Map<string, number>();
  for (const skip of report.skipped) reasons.set(skip.reason, (reasons.get(skip.reason) ?? 0) + 1);
  const fewer = report.imported.filter((entry) => entry.levels < report.levels);
  const lines = [
    `imported ${report.imported.length} of ${report.considered} RLVE environments (rlve-gym ${report.version ?? "?"}, ${report.registered} registered) into ${report.out}; report in ${report.out}/${RLVE_REPORT_FILE}`,
    `  ${report.imported.length - fewer.length} declare all ${report.levels} levels, ${fewer.length} fewer (the level probe stopped)`,
    ...[...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `  not imported, ${reason}: ${count}`),
  ];
  return `${escapeControlCharacters(lines.join("\n"))}\n`;
}
