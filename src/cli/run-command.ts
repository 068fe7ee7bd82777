import { join } from "node:path";
import { configSource, mergeConfigInput, parseConfig, readConfigFile, type Config } from "../config/index.js";
import { buildGates } from "../core/admission/index.js";
import { ConfigError, type RoundRecord, type RoundReport, type Store } from "../spec/index.js";
import { importLineages } from "../core/curriculum/index.js";
import { evolutionDirectory, newestRunFolder, newRunFolder, RUNS_FOLDER } from "./run-folders.js";
import { LazyModel, RUN_FILES, runSelfPlay, storedRoundReports, type SelfPlayResult } from "../core/selfplay/index.js";
import { designerCorpus } from "./designer-corpus.js";
import { classifyModelSpec, openModel } from "../adapters/llm/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { describeRunStore, openRunFolderStore, openRunStore, openStoreAt, runStoreLocation, runStored, withoutPassword, type RunStoreLocation } from "../adapters/store/index.js";
import { stopReferenceTrainer } from "../adapters/trainer/index.js";
import { admissionResources } from "./admission-resources.js";
import { createProgressDisplay } from "./progress-display.js";
import { openTrainer, trainerPlanOf, type OpenedTrainer } from "./open-trainer.js";
import { formatSummary } from "./summary.js";
import { modelOptionsOf } from "./model-options.js";
import { onStopSignals } from "./stop-signals.js";
import { resumeCommand } from "./invocation.js";
import { liveTensorBoardExport } from "./live-tensorboard.js";
import { poolPackages } from "./pool-packages.js";
import { openEnvSeedPackages, terminalSandboxOf, terminalSeedPackages } from "./terminal-runtime.js";

/** Flags of `envforge run`; each maps to one config key. */
export interface RunFlags {
  readonly config?: string;
  readonly rounds?: number;
  readonly designs?: number;
  readonly plays?: number;
  readonly model?: string;
  readonly out?: string;
  readonly seed?: number;
  readonly resume?: boolean;
  readonly terminalSeeds?: string;
  readonly allowNetwork?: boolean;
  readonly openenv?: string;
  /** Folders of envforge packages joining memory (`pool.packages`). */
  readonly packages?: readonly string[];
  /** false: the shipped seeds do not start memory (`pool.seeds`; `--no-seeds`). */
  readonly seeds?: boolean;
  /** PostgreSQL URL of the run's store (`store.url`; `--store`). */
  readonly store?: string;
}

/**
 * The config of `envforge run` as layers, before validation: the config file,
 * then flags over it.
 * @throws ConfigError when the file is missing, not JSON, or not an object
 */
export function runConfigInput(flags: RunFlags): unknown {
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const fromFlags = {
    ...(flags.rounds === undefined ? {} : { rounds: flags.rounds }),
    ...(flags.plays === undefined ? {} : { plays: flags.plays }),
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
    ...(flags.model === undefined ? {} : { model: { spec: flags.model } }),
    ...(flags.designs === undefined ? {} : { designer: { designs: flags.designs } }),
    ...(flags.terminalSeeds === undefined && flags.allowNetwork === undefined
      ? {}
      : { terminal: { ...(flags.terminalSeeds === undefined ? {} : { seeds: flags.terminalSeeds }), ...(flags.allowNetwork === undefined ? {} : { allowNetwork: flags.allowNetwork }) } }),
    ...(flags.openenv === undefined ? {} : { openenv: { packages: flags.openenv } }),
    ...(flags.store === undefined ? {} : { store: { url: flags.store } }),
    ...(flags.packages === undefined && flags.seeds === undefined
      ? {}
      : { pool: { ...(flags.packages === undefined ? {} : { packages: [...flags.packages] }), ...(flags.seeds === undefined ? {} : { seeds: flags.seeds }) } }),
  };
  return mergeConfigInput(fromFile, fromFlags);
}

/**
 * Builds the config of `envforge run`: defaults, then `base` (a resumed run's
 * stored config), then the config file, then flags; the model spec is checked.
 * @throws ConfigError naming the key and allowed values
 */
export function resolveRunConfig(flags: RunFlags, base: unknown = {}): Config {
  const config = parseConfig(mergeConfigInput(base, runConfigInput(flags)), configSource(flags.config));
  classifyModelSpec(config.model.spec);
  return config;
}

/**
 * The run directory: `config.out`; else, for a new run, `runs/run-<UTC timestamp>`;
 * else, when resuming, the newest `runs/run-*` folder.
 * @throws ConfigError when resuming without `--out` and no run exists
 */
export function resolveOutDir(config: Config, resume: boolean, now: Date = new Date()): string {
  if (config.out !== null) return config.out;
  if (!resume) return newRunFolder("run", now);
  return newestRunFolder("run", `--resume found no run in ${RUNS_FOLDER}/; pass --out with the run directory`);
}

/**
 * `envforge run`: wires the adapters named by the config into a self-play run
 * and prints the summary. Returns the process exit code: 0, or 1 when the
 * model was called and never answered.
 */
export async function runCommand(flags: RunFlags): Promise<number> {
  const resume = flags.resume ?? false;
  const given = resolveRunConfig(flags);
  const outDir = resolveOutDir(given, resume);
  const location = runStoreLocation(outDir, given.store.url);
  const where = describeRunStore(location);
  if (resume && !runStored(location)) throw new ConfigError(`--resume: ${outDir} holds no run (${where} holds none)`);
  // a shared store is checked before anything is written: the run folder's pointer, imported lineages
  if (!resume && location.backend === "postgres" && runStored(location)) throw new ConfigError(`${outDir} already holds a run (${where}); pass --resume to continue it or choose another --out`);
  const stored = resume ? readStoredConfig(location) : undefined;
  if (resume && stored === undefined) throw new ConfigError(`--resume: ${outDir} holds no run (${where} has no stored run config)`);
  // a resumed run continues with its stored config; a config file and flags given now override it. The store's
  // password (if the URL holds one) is not stored with the config
  const resolved = resolveRunConfig(flags, stored ?? {});
  const config = resolved.store.url === null ? resolved : { ...resolved, store: { ...resolved.store, url: withoutPassword(resolved.store.url) } };
  if (resume) {
    const finished = finishedRun(location, config.rounds);
    if (finished !== undefined) {
      process.stderr.write(`envforge: ${outDir} is complete: ${finished.done} round(s) done, rounds is ${config.rounds}; nothing to run (add rounds with --resume --rounds N)\n`);
      process.stdout.write(`${formatSummary(finished.reports, { model: config.model.spec, out: outDir, reportPath: join(outDir, RUN_FILES.report), environments: finished.environments, ...(location.backend === "postgres" ? { store: where } : {}) })}\n`);
      return 0;
    }
  }
  if (config.plays < 2 && config.trainer.backend !== "noop") {
    process.stderr.write(`envforge: plays is ${config.plays}: every Solver group holds one play, its advantage is 0 and it is dropped, so the policy gets no Solver datums (use --plays 2 or more)\n`);
  }
  // refusals that need nothing started come before the run's folder and store are written
  trainerPlanOf(config);
  const seeds = [...(config.terminal.only || !config.pool.seeds ? [] : loadSeedPackages()), ...poolPackages(config), ...terminalSeedPackages(config), ...openEnvSeedPackages(config)];
  // terminal tasks (terminal.seeds, or lineages imported from a terminal evolution) play in their jail, made when first needed
  const sandbox = terminalSandboxOf(openSandbox(config.sandbox, (message) => process.stderr.write(`envforge: ${message}\n`)), config);
  const corpus = designerCorpus(config);
  const admission = admissionResources(config);
  const store = openRunStore(outDir, location);
  importFrontierLineages(config, store);
  let progress: ReturnType<typeof createProgressDisplay> | null = null;
  // from here on a stop signal stops the reference trainer this run starts (it runs detached) before exiting
  const removeStopHandlers = onStopSignals(async () => {
    progress?.stop();
    process.stderr.write(`\nenvforge: interrupted; everything finished so far is stored. Continue with: ${resumeCommand("run", outDir)}\n`);
    if (config.trainer.backend === "reference") await stopReferenceTrainer(outDir);
  });
  let opened: OpenedTrainer;
  try {
    opened = await openTrainer(config, outDir, store, resume);
  } catch (error) {
    removeStopHandlers();
    store.close();
    await sandbox.close();
    throw error;
  }
  if (opened.syncCheck !== null) {
    const check = opened.syncCheck;
    process.stderr.write(
      `envforge: the policy samples on llama.cpp with the trainer's adapter; sync check: ${check.meanAbsDifference.toFixed(3)} nats/token mean |engine − trainer| over ${check.positions} probe positions (tolerance ${check.tolerance})\n`,
    );
  }
  if (opened.tokenizer !== null) process.stderr.write(`envforge: the policy's chats are tokenised by ${opened.tokenizer}\n`);
  const trainer = opened.trainer;
  // with a real trainer the policy samples from the trained weights; with noop, from model.spec
  const policy = opened.policy;
  const model = new LazyModel(policy?.id ?? config.model.spec, async () =>
    policy ?? openModel(config.model.spec, modelOptionsOf(config)),
  );
  progress = createProgressDisplay();
  let result: SelfPlayResult;
  let stopped = false;
  try {
    const probe = opened.probe === null ? {} : { probe: opened.probe };
    const engineSampled = opened.engineSampled ? { engineSampled: true } : {};
    const display = progress;
    const afterRound = liveTensorBoardExport(config, outDir, (message) => display.notice?.(message));
    const live = afterRound === undefined ? {} : { afterRound };
    result = await runSelfPlay({ config, outDir, resume, store, model, sandbox, trainer, corpus, seeds, gates: buildGates(config.admission), admission, progress, ...probe, ...engineSampled, ...live });
  } catch (error) {
    // a ConfigError is a refusal before any round ran (e.g. the folder already holds a run): nothing to summarise
    stopped = !(error instanceof ConfigError);
    throw error;
  } finally {
    removeStopHandlers();
    progress.stop();
    await sandbox.close();
    await model.close();
    await opened.close();
    store.close();
    // what a failed run did and saved, and how to continue it (the error itself follows from main)
    if (stopped) {
      const summary = stoppedRunSummary(location, outDir, config);
      if (summary.stdout !== "") process.stdout.write(`${summary.stdout}\n`);
      process.stderr.write(`${summary.stderr}\n`);
    }
  }
  process.stdout.write(`${formatSummary(result.reports, { model: config.model.spec, out: outDir, reportPath: result.reportPath, environments: result.environments, ...(location.backend === "postgres" ? { store: where } : {}) })}\n`);
  if (model.calls > 0 && model.successes === 0) {
    process.stderr.write("envforge: the model never answered; see the errors above and in report.json\n");
    return 1;
  }
  return 0;
}

/**
 * For `solver.sampling: "frontier"`: copies the lineages of the evolution in
 * `evolution.frontier.lineagesFrom` into the run's store (idempotent).
 * @throws ConfigError when that directory holds no evolution
 */
function importFrontierLineages(config: Config, store: Store): void {
  const from = config.evolution.frontier.lineagesFrom;
  if (from === null) return;
  const source = openRunFolderStore(evolutionDirectory(from));
  try {
    importLineages(source, store);
  } finally {
    source.close();
  }
}

/** What a run's store holds, read without starting anything: its rounds, their reports and the memory's size. */
interface StoredRun {
  readonly rounds: readonly RoundRecord[];
  readonly reports: RoundReport[];
  readonly environments: number;
}

function readStoredRun(location: RunStoreLocation): StoredRun {
  const store = openStoreAt(location);
  try {
    return { rounds: store.listRounds(), reports: storedRoundReports(store), environments: store.listEnvironments().length };
  } finally {
    store.close();
  }
}

/** A run whose first `rounds` rounds are all done (with its number of done rounds); undefined when a round is left to run. */
function finishedRun(location: RunStoreLocation, rounds: number): (StoredRun & { done: number }) | undefined {
  const run = readStoredRun(location);
  const done = run.rounds.filter((record) => record.status === "done");
  if (done.filter((record) => record.round <= rounds).length < rounds) return undefined;
  return { ...run, done: done.length };
}

/**
 * What `envforge run` prints when the run stopped on an error (issue 34): the summary of the
 * rounds done (stdout; empty when none is), and on stderr the round it stopped in, what the store
 * holds and the exact command that continues it. Never throws: a store that cannot be read is said so.
 */
export function stoppedRunSummary(location: RunStoreLocation, outDir: string, config: Pick<Config, "rounds" | "model">): { stdout: string; stderr: string } {
  const command = resumeCommand("run", outDir);
  const storePath = describeRunStore(location);
  let run: StoredRun;
  try {
    run = readStoredRun(location);
  } catch (error) {
    return { stdout: "", stderr: `envforge: the run stopped, and its store ${storePath} cannot be read (${(error as Error).message}); once it can, continue with: ${command}` };
  }
  const done = run.rounds.filter((record) => record.status === "done").length;
  const open = run.rounds.find((record) => record.status === "running");
  const where = open === undefined ? `after round ${done}` : `in round ${open.round}${open.solverPhaseDone ? " (its Solver phase is stored)" : ""}`;
  const stdout = run.reports.length === 0 ? "" : formatSummary(run.reports, { model: config.model.spec, out: outDir, reportPath: join(outDir, RUN_FILES.report), environments: run.environments, ...(location.backend === "postgres" ? { store: storePath } : {}) });
  return {
    stdout,
    stderr: `envforge: the run stopped ${where} on the error below. Stored in ${storePath}: ${done} of ${config.rounds} round(s) done, ${run.environments} environments in memory, every finished round, Solver phase and design (an unfinished Solver phase is played again). Continue with: ${command}`,
  };
}

/** The config stored in a run's store (without `out`), or undefined when the store holds no run. */
function readStoredConfig(location: RunStoreLocation): unknown {
  const store = openStoreAt(location);
  try {
    const stored = store.getMeta("config");
    if (stored === undefined) return undefined;
    const { out: _out, ...config } = stored as Record<string, unknown>;
    return config;
  } finally {
    store.close();
  }
}
