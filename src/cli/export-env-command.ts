import { EXPORT_FORMATS } from "../adapters/formats/index.js";
import { EnvironmentCatalog, folderCatalog, readRunStore, seedCatalog, storeCatalog, type EnvironmentFilter, type ServedEnvironment } from "../server/index.js";
import { ConfigError, type ExportedEnvironment, type ExportedPackage, type Store, type Verdict } from "../spec/index.js";

/** Flags of `envforge export env`. */
export interface ExportEnvFlags {
  /** `gymnasium`, `openenv`, `verifiers` or `harbor` (see EXPORT_FORMATS). */
  readonly format: string;
  /** Folder the packages are written into (one sub-folder each). */
  readonly out: string;
  /** A run or evolution directory (its store): environments with scores, lineage and verdicts. */
  readonly store?: string;
  /** Package folders (each a package or a folder of them). @default the seeds */
  readonly envs?: readonly string[];
  /** Every environment of the source (with the filters). @default false */
  readonly all?: boolean;
  readonly skill?: string;
  readonly origin?: "seed" | "designer" | "evolution";
  /** Replace package folders that exist. @default false */
  readonly replace?: boolean;
  /** Print the written packages as JSON. @default false */
  readonly json?: boolean;
}

/**
 * The environments `references` name (ids, unique id prefixes, names, or lineage ids: every
 * generation of the lineage), or with `all` every one matching the filters.
 * @throws ConfigError when nothing is named, or a reference matches nothing
 */
export function selectEnvironments(catalog: EnvironmentCatalog, references: readonly string[], all: boolean, filter: EnvironmentFilter): ServedEnvironment[] {
  if (all) {
    if (references.length > 0) throw new ConfigError("give environments or --all, not both");
    return catalog.list(filter).environments;
  }
  if (references.length === 0) throw new ConfigError("name an environment (an id, a name or a lineage id), or pass --all");
  const chosen = new Map<string, ServedEnvironment>();
  for (const reference of references) {
    const lineage = catalog.list({ lineage: reference }).environments;
    const found = lineage.length > 0 ? lineage : [resolveReference(catalog, reference)];
    for (const environment of found) chosen.set(environment.id, environment);
  }
  return [...chosen.values()];
}

function resolveReference(catalog: EnvironmentCatalog, reference: string): ServedEnvironment {
  try {
    return catalog.resolve(reference);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.replace(/ is served here \(GET \/v1\/envs lists them\)/, " in this source")}`);
  }
}

/** The admission verdicts a store kept per environment id: the admitting design's, or the admitted evolution attempt's. */
export function storedVerdicts(store: Store): Map<string, readonly Verdict[]> {
  const verdicts = new Map<string, readonly Verdict[]>();
  for (const round of store.listRounds()) {
    for (const design of store.listDesigns(round.round)) if (design.environmentId !== null) verdicts.set(design.environmentId, design.verdicts);
  }
  for (const lineage of store.listLineages()) {
    const attempts = store.listEvolutionAttempts(lineage.id);
    for (const generation of store.listGenerations(lineage.id)) {
      const admitted = attempts.filter((attempt) => attempt.generation === generation.generation && attempt.outcome === "validated").at(-1);
      verdicts.set(generation.environmentId, [...generation.validations, ...(admitted?.admission ?? [])]);
    }
  }
  return verdicts;
}

/**
 * Writes each chosen environment as an installable package of `flags.format` into `flags.out`.
 * @throws ConfigError for an unknown format, a reference that matches nothing, or a package folder that exists (without `replace`)
 */
export function exportEnvironments(references: readonly string[], flags: ExportEnvFlags): { format: string; packages: ExportedPackage[] } {
  const format = EXPORT_FORMATS[flags.format];
  if (format === undefined) throw new ConfigError(`--format ${flags.format}: one of ${Object.keys(EXPORT_FORMATS).join(", ")}`);
  if (flags.store !== undefined && flags.envs !== undefined) throw new ConfigError("give either --store or --envs, not both");
  const filter: EnvironmentFilter = { ...(flags.skill === undefined ? {} : { skill: flags.skill }), ...(flags.origin === undefined ? {} : { origin: flags.origin }) };
  const { catalog, verdicts } =
    flags.store !== undefined
      ? readRunStore(flags.store, (store) => ({ catalog: storeCatalog(store), verdicts: storedVerdicts(store) }))
      : { catalog: flags.envs !== undefined ? folderCatalog(flags.envs) : seedCatalog(), verdicts: new Map<string, readonly Verdict[]>() };
  const chosen = selectEnvironments(catalog, references, flags.all === true, filter);
  if (chosen.length === 0) throw new ConfigError("no environment matches the filters");
  const tooled = chosen.filter((environment) => environment.package.manifest.tools !== undefined);
  if (tooled.length > 0) {
    throw new ConfigError(`${tooled.map((environment) => environment.name).join(", ")}: tool environments are not exported yet (their replies are parsed into tool calls, which the exported runtime does not do); serve them with envforge serve (MCP lists their tools)`);
  }
  const stamp = { version: "0.1.0", exportedAt: new Date().toISOString() };
  const names = chosen.map((environment) => `${environment.name}${(environment.lineage?.generation ?? 0) > 0 ? `-g${environment.lineage?.generation}` : ""}`);
  const written: ExportedPackage[] = chosen.map((environment, index) => {
    const name = names[index] as string;
    const exported: ExportedEnvironment = {
      id: environment.id,
      exportName: names.indexOf(name) === names.lastIndexOf(name) ? name : `${name}-${environment.id.slice(4, 12)}`,
      package: environment.package,
      scores: environment.scores,
      round: environment.round,
      lineage: environment.lineage,
      verdicts: verdicts.get(environment.id) ?? null,
    };
    return format.write(exported, flags.out, stamp, flags.replace === true);
  });
  return { format: format.name, packages: written };
}

/**
 * `envforge export env`: {@link exportEnvironments}, then prints where each package went and how to
 * use it (or JSON). Returns 0.
 * @throws ConfigError as {@link exportEnvironments}
 */
export function exportEnvCommand(references: readonly string[], flags: ExportEnvFlags): number {
  const { format, packages: written } = exportEnvironments(references, flags);
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(written, null, 2)}\n`);
    return 0;
  }
  for (const item of written) process.stdout.write(`${item.distribution}: ${item.files.length} files -> ${item.folder}\n  use: ${item.usage}\n`);
  process.stdout.write(`envforge export env: ${written.length} ${format} package(s). ${EXPORT_FORMATS[format]?.note ?? ""}\n`);
  return 0;
}
