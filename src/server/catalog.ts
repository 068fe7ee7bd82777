import { existsSync, statSync } from "node:fs";
import { readHarborTaskFolders } from "../adapters/terminal/index.js";
import { terminalPackage } from "../core/terminal/index.js";
import { loadPackagesAt, loadSeedPackages, PACKAGE_FILES } from "../adapters/package-files/index.js";
import { toolSchemaProblem } from "../core/rollout/index.js";
import { holdsRunStore, openRunFolderStore, SqliteStore } from "../adapters/store/index.js";
import { parseConfig } from "../config/index.js";
import { frontierEnvironments, storedLevelWindows } from "../core/curriculum/index.js";
import {
  ConfigError,
  packageId,
  ServeRequestError,
  type EnvironmentScores,
  type EnvPackage,
  type Store,
} from "../spec/index.js";

/** Where a served environment sits in its lineage (evolution stores only). */
export interface LineagePosition {
  readonly lineageId: string;
  /** 0 for the lineage's seed. */
  readonly generation: number;
  /** Content id of the parent environment, or null for the seed. */
  readonly parentId: string | null;
}

/** One environment the server hosts. */
export interface ServedEnvironment {
  /** Content id (`env-` + 16 hex digits; {@link packageId}). */
  readonly id: string;
  /** The manifest's kebab-case name. */
  readonly name: string;
  readonly package: EnvPackage;
  /** Calibration scores from the store, or null (seeds, package folders). */
  readonly scores: EnvironmentScores | null;
  /** Self-play round that admitted it, or null. */
  readonly round: number | null;
  readonly lineage: LineagePosition | null;
  /**
   * The level controller's current window of a levelled environment in a run store (the levels the
   * run's next round samples from, replayed from its stored rounds with the run's `levels` config);
   * null for one-level environments, seeds and package folders.
   */
  readonly levelWindow?: { readonly low: number; readonly high: number } | null;
}

/** Filters of {@link EnvironmentCatalog.list}; every given one must match. */
export interface EnvironmentFilter {
  /** A skill tag the environment has (case-insensitive). */
  readonly skill?: string;
  /** Substring of the name (case-insensitive). */
  readonly name?: string;
  readonly interaction?: "single-turn" | "multi-turn";
  readonly origin?: "seed" | "designer" | "evolution";
  /** Lineage id. */
  readonly lineage?: string;
  /** Lowest hint regret (scored environments only). */
  readonly minRegret?: number;
  /** Page size. @default all */
  readonly limit?: number;
  /** Entries to skip. @default 0 */
  readonly offset?: number;
}

/**
 * The environments a server hosts, looked up by content id or name. Built once at start (from
 * the seeds, package folders or a run store) and read-only afterwards.
 */
export class EnvironmentCatalog {
  private readonly byId = new Map<string, ServedEnvironment>();
  private readonly byName = new Map<string, ServedEnvironment[]>();

  /**
   * @param environments the hosted environments (duplicates by id are kept once)
   * @param frontierIds ids of the frontier scheduler's current set, or null when no scheduler state exists
   */
  constructor(
    environments: readonly ServedEnvironment[],
    private readonly frontierIds: readonly string[] | null = null,
  ) {
    for (const environment of environments) {
      if (this.byId.has(environment.id)) continue;
      this.byId.set(environment.id, environment);
      this.byName.set(environment.name, [...(this.byName.get(environment.name) ?? []), environment]);
    }
  }

  /** Number of hosted environments. */
  get size(): number {
    return this.byId.size;
  }

  /** Every hosted environment, in the order given. */
  all(): ServedEnvironment[] {
    return [...this.byId.values()];
  }

  /**
   * The environment with this id (or unique id prefix of at least 8 characters) or name.
   * @throws ServeRequestError `unknown_environment` when none matches, `ambiguous_environment` when a name or prefix matches several
   */
  resolve(reference: string): ServedEnvironment {
    const exact = this.byId.get(reference);
    if (exact !== undefined) return exact;
    const named = this.byName.get(reference) ?? [];
    const prefixed = reference.length >= 8 ? this.all().filter((environment) => environment.id.startsWith(reference)) : [];
    const matches = named.length > 0 ? named : prefixed;
    if (matches.length === 1) return matches[0] as ServedEnvironment;
    if (matches.length > 1) {
      throw new ServeRequestError("ambiguous_environment", `${JSON.stringify(reference)} names ${matches.length} environments (${matches.map((match) => match.id).join(", ")}); use an id`);
    }
    throw new ServeRequestError("unknown_environment", `no environment ${JSON.stringify(reference.slice(0, 200))} is served here (GET /v1/envs lists them)`);
  }

  /** The environments matching `filter`, and how many matched before paging. */
  list(filter: EnvironmentFilter = {}): { total: number; environments: ServedEnvironment[] } {
    const skill = filter.skill?.toLowerCase();
    const name = filter.name?.toLowerCase();
    const matched = this.all().filter((environment) => {
      const manifest = environment.package.manifest;
      if (skill !== undefined && !manifest.skills.some((tag) => tag.toLowerCase() === skill)) return false;
      if (name !== undefined && !environment.name.includes(name)) return false;
      if (filter.interaction !== undefined && manifest.interaction !== filter.interaction) return false;
      if (filter.origin !== undefined && manifest.provenance.origin !== filter.origin) return false;
      if (filter.lineage !== undefined && environment.lineage?.lineageId !== filter.lineage) return false;
      if (filter.minRegret !== undefined && !((environment.scores?.regret ?? Number.NEGATIVE_INFINITY) >= filter.minRegret)) return false;
      return true;
    });
    const offset = filter.offset ?? 0;
    const limit = filter.limit ?? matched.length;
    return { total: matched.length, environments: matched.slice(offset, offset + limit) };
  }

  /** The frontier scheduler's current set (one environment per lineage), or null without scheduler state. */
  frontier(): ServedEnvironment[] | null {
    if (this.frontierIds === null) return null;
    return this.frontierIds.flatMap((id) => {
      const environment = this.byId.get(id);
      return environment === undefined ? [] : [environment];
    });
  }
}

/** A served entry for a package without store records. */
function fromPackage(pkg: EnvPackage): ServedEnvironment {
  return { id: packageId(pkg), name: pkg.manifest.name, package: pkg, scores: null, round: null, lineage: null };
}

/** The shipped seed environments. */
export function seedCatalog(): EnvironmentCatalog {
  return new EnvironmentCatalog(loadSeedPackages().map(fromPackage));
}

/**
 * Package folders: each path is a package folder (with `env.json`) or a folder of them.
 * @throws ConfigError when a path does not exist or holds no package
 * @throws PackageFormatError when a package is malformed
 */
export function folderCatalog(paths: readonly string[]): EnvironmentCatalog {
  const packages = paths.flatMap((path) => {
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new ConfigError(`--envs ${path}: not a folder`);
    const found = loadPackagesAt(path);
    for (const pkg of found) {
      const problem = toolSchemaProblem(pkg.manifest.tools);
      if (problem !== null) throw new ConfigError(`--envs ${path}: ${pkg.manifest.name}: ${problem}`);
    }
    const tasks = readHarborTaskFolders(path).map((task) => {
      if ("status" in task) throw new ConfigError(`--envs ${String(task.evidence?.folder ?? path)}: ${task.message}`);
      return terminalPackage(task);
    });
    if (found.length + tasks.length === 0) throw new ConfigError(`--envs ${path}: no environment package (a folder with ${PACKAGE_FILES.manifest}) or Harbor task folder (with task.toml) in it`);
    return [...found, ...tasks];
  });
  return new EnvironmentCatalog(packages.map(fromPackage));
}

/**
 * Every environment in a store, with scores, lineage positions, the level controller's window of
 * each levelled environment, and the frontier scheduler's current set (when the store has lineages).
 */
export function storeCatalog(store: Store): EnvironmentCatalog {
  const lineage = new Map<string, LineagePosition>();
  for (const record of store.listLineages()) {
    lineage.set(record.seedId, { lineageId: record.id, generation: 0, parentId: null });
    for (const generation of store.listGenerations(record.id)) {
      lineage.set(generation.environmentId, { lineageId: record.id, generation: generation.generation, parentId: generation.parentId });
    }
  }
  const records = store.listEnvironments();
  // the run's own controller settings (a run stores its config), else the defaults
  const stored = store.getMeta("config") as { levels?: unknown } | undefined;
  const levels = parseConfig({ levels: stored?.levels ?? {} }).levels;
  const windows = storedLevelWindows(store, records, Number.POSITIVE_INFINITY, levels);
  const environments = records.map((record) => {
    const window = record.package.manifest.levels === undefined ? undefined : windows.get(record.id);
    return {
      id: record.id,
      name: record.package.manifest.name,
      package: record.package,
      scores: record.scores,
      round: record.round,
      lineage: lineage.get(record.id) ?? null,
      levelWindow: window === undefined ? null : { low: window.low, high: window.high },
    };
  });
  const frontier = lineage.size === 0 ? null : frontierEnvironments(store).map((record) => record.id);
  return new EnvironmentCatalog(environments, frontier);
}

/**
 * The store of a run or evolution directory (`DIR/envforge.db`, or the database file itself), read once.
 * @throws ConfigError when no store is there
 * @throws StoreError when it cannot be read
 */
export function runStoreCatalog(path: string): EnvironmentCatalog {
  const catalog = readRunStore(path, storeCatalog);
  if (catalog.size === 0) throw new ConfigError(`--store ${path}: the store holds no environment`);
  return catalog;
}

/**
 * Opens the store of a run or evolution directory (its `envforge.db`, or the PostgreSQL schema its
 * `store.json` names), or a database file itself, gives it to `read`, and closes it.
 * @throws ConfigError when no store is there
 * @throws StoreError when it cannot be read
 */
export function readRunStore<T>(path: string, read: (store: Store) => T): T {
  const folder = existsSync(path) && statSync(path).isDirectory();
  if (folder ? !holdsRunStore(path) : !existsSync(path)) throw new ConfigError(`--store ${path}: no envforge.db there, nor a store.json naming a PostgreSQL store (give a run or evolution directory)`);
  const store = folder ? openRunFolderStore(path) : new SqliteStore(path);
  try {
    return read(store);
  } finally {
    store.close();
  }
}
