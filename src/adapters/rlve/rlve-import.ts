import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, MAX_LEVELS, type Sandbox } from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { makeDirectory } from "../../support/make-directory.js";
import { savePackageFolder } from "../package-files/index.js";
import { readRlveCatalogue, type RlveEntry } from "./rlve-catalogue.js";
import { rlveEnvSource, rlveOracleSource, rlvePackage, rlvePackageName, sourceProblem, type RlveSkip } from "./rlve-package.js";
import { probeLevels, type LevelProbeStop } from "./rlve-probe.js";

/** Levels asked for when none are given: RLVE's controller after 0..9 `update()` calls. */
export const DEFAULT_RLVE_LEVELS = 10;

/** File of the output folder holding the {@link RlveImportReport} of the last import. */
export const RLVE_REPORT_FILE = "import-report.json";

/** Options of {@link importRlve}. */
export interface RlveImportOptions {
  /** Sandbox the packages are probed in (level by level, with their oracle). */
  readonly sandbox: Sandbox;
  /** Folder the package folders are written into (one per environment, named after the package). */
  readonly out: string;
  /** RLVE identifiers (`Multiplication`) or envforge names (`rlve-multiplication`) to import; all when absent. */
  readonly only?: readonly string[];
  /** Levels to try, 1..{@link MAX_LEVELS}. @default {@link DEFAULT_RLVE_LEVELS} */
  readonly levels?: number;
  /** Episode seeds of the level probe. @default [0, 1] */
  readonly probeSeeds?: readonly number[];
  /** Environments probed at the same time. @default 1 */
  readonly concurrency?: number;
  /** Interpreter with rlve-gym installed. @default `.venv-rlve/bin/python` */
  readonly python?: string;
  /** Clock of the provenance time (injectable for tests). @default () => new Date() */
  readonly now?: () => Date;
  /** Told after each environment is done (imported or skipped). */
  readonly onEnvironment?: (done: number, total: number, identifier: string) => void;
}

/** One imported environment. */
export interface RlveImported {
  readonly identifier: string;
  /** Package name, also its folder's name under `out`. */
  readonly name: string;
  readonly folder: string;
  /** Levels declared. */
  readonly levels: number;
  /** Why fewer levels than asked were declared (the probe's first failing episode); null when all were. */
  readonly stop: LevelProbeStop | null;
}

/** What {@link importRlve} did: written to `out/import-report.json` and printed by `envforge import rlve --json`. */
export interface RlveImportReport {
  /** rlve-gym version read. */
  readonly version: string | null;
  /** Where the `Gym` package was read from. */
  readonly gymPath: string;
  readonly out: string;
  /** Levels asked for. */
  readonly levels: number;
  /** Environments in RLVE's registry. */
  readonly registered: number;
  /** Environments considered (the registry, or the `only` ones). */
  readonly considered: number;
  readonly imported: readonly RlveImported[];
  readonly skipped: readonly RlveSkip[];
}

/**
 * The RLVE identifiers `only` names (by identifier, `Multiplication`, or package name,
 * `rlve-multiplication`), in registry order.
 * @param registered every identifier of RLVE's registry
 * @throws ConfigError naming every unknown name (with the closest known identifiers)
 */
export function resolveRlveIdentifiers(registered: readonly string[], only: readonly string[]): string[] {
  const byName = new Map<string, string>();
  for (const identifier of registered) {
    byName.set(identifier, identifier);
    byName.set(rlvePackageName(identifier), identifier);
  }
  const unknown = only.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, "");
    const suggestions = unknown.map((name) => {
      const key = squash(name.replace(/^rlve-/, ""));
      const close = registered.filter((identifier) => key.length >= 3 && (squash(identifier).includes(key) || key.includes(squash(identifier))));
      return close.length > 0 ? `${name} (did you mean ${close.slice(0, 3).join(", ")}?)` : name;
    });
    throw new ConfigError(`unknown RLVE environment${unknown.length > 1 ? "s" : ""}: ${suggestions.join("; ")}; RLVE registers ${registered.length} (identifiers such as ${registered.slice(0, 3).join(", ")})`);
  }
  const chosen = new Set(only.map((name) => byName.get(name) as string));
  return registered.filter((identifier) => chosen.has(identifier));
}

/**
 * Imports RLVE's environments as envforge packages: reads the installed rlve-gym's sources
 * ({@link readRlveCatalogue}), leaves out those that cannot run in envforge's sandbox or have
 * no stored reference answer ({@link sourceProblem}), generates each other's self-contained
 * `env.py` and `oracle.py`, probes its levels in `sandbox` ({@link probeLevels}: it declares
 * the levels at which reset and the oracle's win work on the probe seeds, at least one; a
 * package whose level 0 does not reset, twice when the first failure was a timeout, is left
 * out) and writes the package folders and
 * `out/import-report.json`.
 *
 * @throws ConfigError when rlve-gym is not installed (run `./scripts/setup.sh`),
 *   an `only` name is unknown, or `levels` is outside 1..{@link MAX_LEVELS}
 */
export async function importRlve(options: RlveImportOptions): Promise<RlveImportReport> {
  const levels = options.levels ?? DEFAULT_RLVE_LEVELS;
  if (!Number.isInteger(levels) || levels < 1 || levels > MAX_LEVELS) throw new ConfigError(`--levels must be an integer in 1..${MAX_LEVELS}, got ${levels}`);
  const python = options.python === undefined ? {} : { python: options.python };
  // with `only`, the registry alone first (to resolve the names), then the modules of the chosen ones
  const identifiers = options.only === undefined ? undefined : resolveRlveIdentifiers((await readRlveCatalogue({ ...python, identifiers: [] })).registered, options.only);
  const catalogue = await readRlveCatalogue({ ...python, ...(identifiers === undefined ? {} : { identifiers }) });
  const entries: RlveEntry[] = catalogue.environments;
  const createdAt = (options.now ?? (() => new Date()))().toISOString();
  makeDirectory(options.out);
  let done = 0;
  const results = await mapWithConcurrency(entries, Math.max(1, options.concurrency ?? 1), async (entry): Promise<RlveImported | RlveSkip> => {
    const result = await importOne(entry, catalogue.version, levels, createdAt, options);
    done += 1;
    options.onEnvironment?.(done, entries.length, entry.identifier);
    return result;
  });
  const report: RlveImportReport = {
    version: catalogue.version,
    gymPath: catalogue.gymPath,
    out: options.out,
    levels,
    registered: catalogue.registered.length,
    considered: entries.length,
    imported: results.filter((result): result is RlveImported => "folder" in result),
    skipped: results.filter((result): result is RlveSkip => "reason" in result),
  };
  writeFileSync(join(options.out, RLVE_REPORT_FILE), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

async function importOne(entry: RlveEntry, version: string | null, levels: number, createdAt: string, options: RlveImportOptions): Promise<RlveImported | RlveSkip> {
  const problem = sourceProblem(entry);
  if (problem !== null) return problem;
  const envSource = rlveEnvSource(entry, version);
  const oracleSource = rlveOracleSource();
  const probeOnce = () => probeLevels(options.sandbox, { envSource, oracleSource, rewardRange: [-1, 1] }, { levels, ...(options.probeSeeds === undefined ? {} : { seeds: options.probeSeeds }) });
  let probe = await probeOnce();
  // a load or level-0 reset that timed out is tried once more: on a busy machine the first load can miss the call timeout
  if (!probe.resetsAtLevelZero && probe.stop?.message.startsWith("timeout")) probe = await probeOnce();
  if (!probe.resetsAtLevelZero) {
    return { identifier: entry.identifier, reason: "reset_failed", message: `level 0, seed ${probe.stop?.seed}: ${probe.stop?.message ?? "reset failed"}` };
  }
  const pkg = rlvePackage(entry, envSource, {
    levelCount: Math.max(1, probe.levelsWon),
    firstParameters: probe.firstParameters,
    lastParameters: probe.lastParameters,
    example: probe.example,
    createdAt,
    version,
  });
  const folder = join(options.out, pkg.manifest.name);
  savePackageFolder(pkg, folder);
  return { identifier: entry.identifier, name: pkg.manifest.name, folder, levels: pkg.manifest.levels?.count ?? 1, stop: probe.stop };
}
