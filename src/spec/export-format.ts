import type { EnvPackage } from "./env-package.js";
import type { EnvironmentScores } from "./store.js";
import type { Verdict } from "./verdict.js";

/**
 * An environment as it leaves envforge: the package (program, oracle, manifest with levels and
 * hint) and what envforge knows of it, which goes into the exported package's provenance.
 */
export interface ExportedEnvironment {
  /** Content id (`env-` + 16 hex digits; `packageId`). */
  readonly id: string;
  /**
   * What the package is named by (kebab-case): the manifest's name, with `-g<N>` for generation N of
   * a lineage, and `-<8 hex digits of the id>` when two environments of one export would share it.
   */
  readonly exportName: string;
  readonly package: EnvPackage;
  /** Calibration scores from the store, or null (seeds, package folders). */
  readonly scores: EnvironmentScores | null;
  /** Self-play round that admitted it, or null. */
  readonly round: number | null;
  /** Lineage position (evolution stores), or null. */
  readonly lineage: { readonly lineageId: string; readonly generation: number; readonly parentId: string | null } | null;
  /** The admission verdicts the store kept for it (the design's or evolution attempt's), or null when none are stored. */
  readonly verdicts: readonly Verdict[] | null;
}

/** What an {@link ExportFormat} wrote for one environment. */
export interface ExportedPackage {
  /** The package's folder (absolute). */
  readonly folder: string;
  /** The distribution name `pip install` gives it, e.g. `envforge-gym-number-guess`. */
  readonly distribution: string;
  /** The import name of its Python module. */
  readonly module: string;
  /** Files written, relative to `folder`. */
  readonly files: readonly string[];
  /** One line: how to use it once installed. */
  readonly usage: string;
}

/**
 * One target ecosystem of `envforge export env` (design map: formats at the edges, one interface):
 * writes an installable Python package of an environment that runs without envforge installed.
 */
export interface ExportFormat {
  /** The `--format` value, e.g. `gymnasium`. */
  readonly name: string;
  /** One line for `--help`. */
  readonly description: string;
  /** What the command says after writing: where the exported program runs (the sandbox warning, or its container). */
  readonly note: string;
  /**
   * Writes the package for `environment` into a new folder under `outDir`.
   * @param generated what the package's provenance says about the export (envforge version, time)
   * @throws ConfigError when the folder exists and `replace` is false
   */
  write(environment: ExportedEnvironment, outDir: string, generated: ExportStamp, replace: boolean): ExportedPackage;
}

/** When and by what an export was made. */
export interface ExportStamp {
  /** envforge's version. */
  readonly version: string;
  /** ISO 8601 time of the export. */
  readonly exportedAt: string;
}
