import { cpSync, existsSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configSource, mergeConfigInput, parseConfig, readConfigFile, type Config } from "../config/index.js";
import { ConfigError, packageId, type EnvPackage, type LanguageModel, type LineageRecord, type Sandbox, type TerminalRuntime } from "../spec/index.js";
import { describeRunStore, holdsRunStore, openRunFolderStore, openRunStore, openStoreAt, runStoreLocation, runStored, withoutPassword, type RunStoreLocation } from "../adapters/store/index.js";
import { evolveOnWorkers } from "./evolution-jobs.js";
import { PgBossQueue } from "../adapters/jobs/index.js";
import {
  DEFAULT_RUBRICS_PATH,
  evolutionGates,
  evolutionSettingsFromConfig,
  funnelSeeds,
  LINEAGES_FILE,
  probeSeed,
  readRubrics,
  runEvolution,
  writeLineagesDocument,
  type FunnelDecision,
  type LineageOutcome,
  type TerminalEvolutionHost,
} from "../core/evolution/index.js";
import { LazyModel } from "../core/selfplay/index.js";
import { readCorpus } from "../adapters/corpus/index.js";
import { admissionResources } from "./admission-resources.js";
import { classifyModelSpec, openModel } from "../adapters/llm/index.js";
import { loadPackageFolder, loadPackageFolders, loadSeedPackages } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { createEvolutionProgress } from "./evolution-progress.js";
import { newestRunFolder, newRunFolder, RUNS_FOLDER } from "./run-folders.js";
import { formatEvolutionSummary } from "./lineage-view.js";
import { modelOptionsOf } from "./model-options.js";
import { onStopSignals } from "./stop-signals.js";
import { envforgeCommand, resumeCommand } from "./invocation.js";
import { readHarborTask, readHarborTaskFolders, readTaskFiles, writeTaskFolder } from "../adapters/terminal/index.js";
import { DEFAULT_TERMINAL_TURNS, terminalPackage } from "../core/terminal/index.js";
import { terminalSeeds } from "./admit-terminal.js";
import { TERMINAL_CORPUS_PATH } from "./design-terminal-command.js";
import { terminalRuntimeOf, terminalSandboxOf } from "./terminal-runtime.js";

/** Flags of `envforge evolve`; each maps to one config key (except `from` and `resume`). */
export interface EvolveFlags {
  readonly from?: string;
  readonly config?: string;
  readonly generations?: number;
  readonly direction?: string;
  readonly effort?: string;
  readonly out?: string;
  readonly model?: string;
  readonly seed?: number;
  readonly rubrics?: string;
  readonly funnel?: boolean;
  readonly resume?: boolean;
  /** PostgreSQL URL of the evolution's store (`store.url`; `--store`). */
  readonly store?: string;
  /** `remote`: the lineages evolve as jobs on `envforge worker` processes (needs `--store`). @default "local" */
  readonly workers?: "local" | "remote";
}

/** Store metadata key of an evolution run's config and `--from`. */
export const EVOLUTION_META = "evolution";
/** Store metadata key of the seed funnel's decisions. */
export const FUNNEL_META = "funnel";

/**
 * The config of `envforge evolve`: defaults, then `base` (a resumed run's
 * stored config), then the config file, then flags.
 * @throws ConfigError naming the key and allowed values
 */
export function resolveEvolveConfig(flags: EvolveFlags, base: unknown = {}): Config {
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const evolution = {
    ...(flags.generations === undefined ? {} : { generations: flags.generations }),
    ...(flags.direction === undefined ? {} : { direction: flags.direction }),
    ...(flags.effort === undefined ? {} : { effort: flags.effort }),
    ...(flags.rubrics === undefined ? {} : { rubrics: flags.rubrics }),
    ...(flags.funnel === undefined ? {} : { funnel: { enabled: flags.funnel } }),
  };
  const fromFlags = {
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
    ...(flags.model === undefined ? {} : { model: { spec: flags.model } }),
    ...(Object.keys(evolution).length === 0 ? {} : { evolution }),
    ...(flags.store === undefined ? {} : { store: { url: flags.store } }),
  };
  const config = parseConfig(mergeConfigInput(mergeConfigInput(base, fromFile), fromFlags), configSource(flags.config));
  classifyModelSpec(config.model.spec);
  return config;
}

/**
 * The candidate environments `--from` names: `seeds` (the shipped seeds), a
 * run or evolution directory holding `envforge.db` (its pool), one package
 * folder (with `env.json`), a folder of package folders, or Harbor task folders
 * (one, or a folder of them such as `envs/terminal-seeds`: terminal tasks of
 * `maxTurns` commands (default 30), read from their copies in `tasksDir` when given, so an
 * evolution keeps its seeds beside its children).
 * @throws ConfigError when the path does not exist or holds no package, or a task folder does not read
 * @throws PackageFormatError when a package is malformed
 */
export function loadCandidates(from: string, options: { readonly maxTurns?: number; readonly tasksDir?: string } = {}): EnvPackage[] {
  if (from === "seeds") return loadSeedPackages();
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new ConfigError(`--from ${from}: not a folder (give a package folder, a folder of packages, a run directory, Harbor task folders, or "seeds")`);
  if (holdsRunStore(from)) {
    const store = openRunFolderStore(from);
    try {
      return store.listEnvironments().map((record) => record.package);
    } finally {
      store.close();
    }
  }
  if (existsSync(join(from, "env.json"))) return [loadPackageFolder(from)];
  if (readHarborTaskFolders(from).length > 0) return terminalCandidates(from, options.maxTurns ?? DEFAULT_TERMINAL_TURNS, options.tasksDir);
  const packages = loadPackageFolders(from);
  if (packages.length === 0) throw new ConfigError(`--from ${from}: no package folders (with env.json) or Harbor task folders (with task.toml) inside`);
  return packages;
}

/** The Harbor tasks under `from` as packages, each first copied (once) to `tasksDir/<name>/g0` when given. */
function terminalCandidates(from: string, maxTurns: number, tasksDir: string | undefined): EnvPackage[] {
  return readHarborTaskFolders(from).map((task) => {
    if ("status" in task) throw new ConfigError(`--from ${from}: ${String(task.evidence?.folder ?? "a task")} does not read (${task.reason}): ${task.message}`);
    if (tasksDir === undefined) return terminalPackage(task, maxTurns);
    const copy = join(tasksDir, basename(task.folder), "g0");
    if (!existsSync(copy)) cpSync(task.folder, copy, { recursive: true });
    const copied = readHarborTask(copy);
    if ("status" in copied) throw new ConfigError(`${copy}: ${copied.message}`);
    return terminalPackage(copied, maxTurns);
  });
}

/** Folder of an evolution's terminal task folders: the seeds' copies and every child attempt's. */
export const TERMINAL_TASKS_FOLDER = "tasks";

/** The rubrics of terminal lineages (`evolution.rubrics` overrides them). */
export const TERMINAL_RUBRICS_PATH = fileURLToPath(new URL("../../rubrics/terminal-evolution.md", import.meta.url));

/**
 * The file side of terminal lineages for an evolution: the jail is `runtime` (shared with the
 * evolution's sandbox), and each child is written beside its lineage's seed copy, to
 * `tasks/<seed folder>/<name>` (the seeds' copies are `tasks/<seed folder>/g0`).
 */
function terminalHost(config: Config, runtime: () => TerminalRuntime): TerminalEvolutionHost {
  return {
    get runtime() {
      return runtime();
    },
    readFiles(folder) {
      if (!existsSync(folder)) throw new ConfigError(`the task folder ${folder} is gone; the evolution's store refers to it (restore the evolution's tasks/ folder)`);
      return readTaskFiles(folder);
    },
    materialize(files, name, seedFolder) {
      const folder = join(dirname(seedFolder), name);
      rmSync(folder, { recursive: true, force: true });
      writeTaskFolder(files, folder);
      return readHarborTask(folder);
    },
    pool: terminalSeeds(),
    maxTurns: config.terminal.maxTurns,
  };
}

/**
 * The candidates of a resumed evolution of terminal tasks: the seeds of its stored lineages (their
 * copies in `tasks/`), so a resume needs neither the original folders nor their unchanged files;
 * null when the store holds no terminal lineage yet (the candidates are read from `--from` again).
 */
function storedTerminalSeeds(location: RunStoreLocation): EnvPackage[] | null {
  const store = openStoreAt(location);
  try {
    const seeds = store.listLineages().map((lineage) => lineage.seed);
    return seeds.length > 0 && seeds.every((seed) => seed.terminal !== undefined) ? seeds : null;
  } finally {
    store.close();
  }
}

/** The evolution directory: `config.out`, else `runs/evolve-<UTC timestamp>`, else (resuming) the newest `runs/evolve-*`. */
export function resolveEvolveOutDir(config: Config, resume: boolean, now: Date = new Date()): string {
  if (config.out !== null) return config.out;
  if (!resume) return newRunFolder("evolve", now);
  return newestRunFolder("evolve", `--resume found no evolution in ${RUNS_FOLDER}/; pass --out with its directory`);
}

/**
 * `envforge evolve`: evolves lineages from the candidates in `--from` into
 * `--out` (store `envforge.db`, `lineages.json` rewritten after every
 * attempt) and prints a summary. Returns the exit code: 0, or 1 when the
 * model was called and never answered.
 * @throws ConfigError for bad flags, a directory that already holds an evolution without `--resume`, or a missing `--from`
 */
export async function evolveCommand(flags: EvolveFlags): Promise<number> {
  const resume = flags.resume ?? false;
  const given = resolveEvolveConfig(flags);
  const outDir = resolveEvolveOutDir(given, resume);
  const location = runStoreLocation(outDir, given.store.url);
  const where = describeRunStore(location);
  if (flags.workers === "remote" && location.backend !== "postgres") throw new ConfigError("--workers remote needs --store postgres://… (the deployment's database: the workers evolve the lineages in it)");
  if (resume && !runStored(location)) throw new ConfigError(`--resume: ${outDir} holds no evolution (${where} holds none)`);
  if (!resume && runStored(location)) throw new ConfigError(`${outDir} already holds a store; pass --resume to continue it or choose another --out`);
  const stored = resume ? readStoredMeta(location) : undefined;
  const resolved = resolveEvolveConfig(flags, stored?.config ?? {});
  const config = resolved.store.url === null ? resolved : { ...resolved, store: { ...resolved.store, url: withoutPassword(resolved.store.url) } };
  const from = flags.from ?? stored?.from;
  if (from === undefined) throw new ConfigError("evolve needs --from DIR|POOL (a package folder, a folder of packages, a run directory, or \"seeds\")");
  const candidates = (resume ? storedTerminalSeeds(location) : null) ?? loadCandidates(from, { maxTurns: config.terminal.maxTurns, tasksDir: join(outDir, TERMINAL_TASKS_FOLDER) });
  // terminal lineages (Harbor task folders) have their own rubrics and corpus, unless the config names others
  const terminal = candidates.length > 0 && candidates.every((candidate) => candidate.terminal !== undefined);
  const rubrics = readRubrics(config.evolution.rubrics ?? (terminal ? TERMINAL_RUBRICS_PATH : DEFAULT_RUBRICS_PATH));
  const corpus = readCorpus(config.corpus.path ?? (terminal ? TERMINAL_CORPUS_PATH : null));
  // one jail for the terminal gates and the funnel's rollouts, made when first needed and closed at the end
  let runtime: TerminalRuntime | null = null;
  const jail = () => (runtime ??= terminalRuntimeOf(config));
  const sandbox = terminalSandboxOf(openSandbox(config.sandbox, (message) => process.stderr.write(`envforge: ${message}\n`)), config, jail);
  const host = terminalHost(config, jail);
  const model = new LazyModel(config.model.spec, () =>
    openModel(config.model.spec, modelOptionsOf(config)),
  );
  const store = openRunStore(outDir, location);
  const lineagesPath = join(outDir, LINEAGES_FILE);
  const progress = createEvolutionProgress(config.evolution.generations, () => writeLineagesDocument(store, lineagesPath));
  const removeStopHandlers = onStopSignals(() => {
    progress.stop();
    process.stderr.write(`\nenvforge: interrupted; every validated generation is stored. Continue with: ${resumeCommand("evolve", outDir)}\n`);
  });
  const started = Date.now();
  let outcomes: LineageOutcome[];
  let funnel: FunnelDecision[] | null = null;
  try {
    if (stored === undefined) store.setMeta(EVOLUTION_META, { config, from });
    let seeds = candidates;
    if (config.evolution.funnel.enabled) {
      // the funnel's decisions are stored, so a resumed evolution keeps the same seeds
      funnel = (store.getMeta(FUNNEL_META) as FunnelDecision[] | undefined) ?? (await runFunnel(candidates, model, sandbox, config));
      store.setMeta(FUNNEL_META, funnel);
      const kept = new Set(funnel.filter((decision) => decision.kept).map((decision) => decision.probe.seedId));
      seeds = candidates.filter((candidate) => kept.has(packageId(candidate)));
      for (const decision of funnel) progress.notice?.(`funnel: ${decision.probe.name} ${decision.probe.wins}/${decision.probe.rollouts} won, ${decision.probe.meanTurns.toFixed(1)} turns: ${decision.kept ? "kept" : `dropped (${decision.reason})`}`);
    }
    const remote =
      flags.workers === "remote" && location.backend === "postgres"
        ? async (lineages: readonly LineageRecord[]) => {
            if (lineages.some((lineage) => lineage.seed.terminal !== undefined)) throw new ConfigError("--workers remote evolves environment programs; terminal lineages (Harbor task folders) evolve here, without it");
            const queue = await PgBossQueue.open(location.url, { heartbeatSeconds: config.jobs.heartbeatSeconds, retryLimit: config.jobs.retryLimit, retryDelaySeconds: config.jobs.retryDelaySeconds, namespace: config.jobs.namespace });
            try {
              progress.notice?.(`${lineages.length} lineage(s) enqueued as evolution jobs; waiting for envforge worker processes (envforge worker --store URL --roles evolution)`);
              return await evolveOnWorkers(queue, lineages, location.schema, config, (outcome) => {
                writeLineagesDocument(store, lineagesPath);
                progress.notice?.(`${outcome.lineageId}: ${outcome.status} with ${outcome.generations} generation(s)`);
              });
            } finally {
              await queue.close();
            }
          }
        : undefined;
    outcomes = await runEvolution(seeds, { model, sandbox, store, corpus, gates: evolutionGates(config.admission), admission: admissionResources(config), rubrics, progress, terminal: host }, evolutionSettingsFromConfig(config), remote);
    writeLineagesDocument(store, lineagesPath);
    process.stdout.write(`${formatEvolutionSummary(store, outcomes, { model: config.model.spec, out: outDir, seconds: (Date.now() - started) / 1000, funnel })}\n`);
  } finally {
    removeStopHandlers();
    progress.stop();
    await sandbox.close();
    await (runtime as TerminalRuntime | null)?.close();
    await model.close();
    store.close();
  }
  if (model.calls > 0 && model.successes === 0) {
    process.stderr.write("envforge: the model never answered; see the attempts with `" + envforgeCommand() + " lineage show`\n");
    return 1;
  }
  return 0;
}

async function runFunnel(candidates: readonly EnvPackage[], model: LanguageModel, sandbox: Sandbox, config: Config): Promise<FunnelDecision[]> {
  const probes = [];
  for (const candidate of candidates) {
    probes.push(await probeSeed(candidate, model, sandbox, { ...config.solver, rollouts: config.evolution.funnel.rollouts }, `${config.seed}/funnel/${candidate.manifest.name}`));
  }
  return funnelSeeds(probes, config.evolution.funnel);
}

function readStoredMeta(location: RunStoreLocation): { config: unknown; from: string | undefined } {
  const store = openStoreAt(location);
  try {
    const meta = (store.getMeta(EVOLUTION_META) ?? {}) as { config?: Record<string, unknown>; from?: string };
    const { out: _out, ...config } = meta.config ?? {};
    return { config, from: meta.from };
  } finally {
    store.close();
  }
}
