import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { configSource, ADMISSION_GATE_NAMES, mergeConfigInput, parseConfig, readConfigFile, type AdmissionGateName, type Config } from "../config/index.js";
import { ConfigError, type EnvPackage, type LanguageModel, type RejectVerdict } from "../spec/index.js";
import {
  admissionConcurrency,
  admit,
  buildGates,
  scoreEvaluation,
  type AdmissionContext,
  type AdmissionGate,
  type AdmissionResult,
  type FixtureLabel,
  type FixtureOutcome,
} from "../core/admission/index.js";
import { solverPolicy } from "../core/selfplay/index.js";
import { openModel } from "../adapters/llm/index.js";
import { PACKAGE_FILES, SEED_FOLDER } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { mapWithConcurrency } from "../support/concurrency.js";
import { admissionResources } from "./admission-resources.js";
import { admitTerminalCommand, evaluateTerminalCommand, isTerminalCorpus } from "./admit-terminal.js";
import { isHarborTaskFolder } from "../adapters/terminal/index.js";
import { terminalSandboxOf } from "./terminal-runtime.js";
import { loadCandidate } from "./load-candidate.js";
import { writeAdmission, writeEvaluationReport } from "./admit-output.js";
import { modelOptionsOf } from "./model-options.js";
import { readCorpus } from "../adapters/corpus/index.js";
import { admissionPayload, admitOnWorkers } from "./admission-jobs.js";
import { PgBossQueue } from "../adapters/jobs/index.js";
import { redactedUrl } from "../adapters/store/index.js";

/** Flags of `envforge admit`; each maps to a config key. */
export interface AdmitFlags {
  readonly config?: string;
  readonly json?: boolean;
  /** Comma-separated gate names (config `admission.gates`). */
  readonly gates?: string;
  /** Comma-separated gate names to leave out (config `admission.skip`). */
  readonly skip?: string;
  /** Model spec for the model-based gates (config `model.spec`); without it they do not run. */
  readonly model?: string;
  /** Benchmark texts for decontamination (config `admission.benchmarkPath`). */
  readonly benchmarks?: string;
  /** Evaluate the broken-environment corpus in this folder instead of admitting one package. */
  readonly eval?: string;
  /** Package folders, or folders of package folders, added to the novelty pool beside the ten seeds. */
  readonly pool?: readonly string[];
  /** PostgreSQL URL of the deployment (`--store`): with `workers: "remote"`, where the admission jobs go. */
  readonly store?: string;
  /** `remote`: `--eval` admits on `envforge worker` processes through the job queue at `store`. @default "local" */
  readonly workers?: "local" | "remote";
  /** Called with the queue's progress while remote admissions finish (done of total). */
  readonly onRemoteProgress?: (done: number, total: number) => void;
}

/**
 * The packages of `--pool` paths: each path is a package folder (with
 * `env.json`) or a folder whose sub-folders are packages.
 * @throws ConfigError when a path does not exist, holds no package, or a package in it is malformed
 */
export function loadPoolPackages(paths: readonly string[]): EnvPackage[] {
  return loadPoolFolders(paths).map((entry) => entry.package);
}

/** {@link loadPoolPackages} with the folder each package was read from. */
function loadPoolFolders(paths: readonly string[]): { readonly package: EnvPackage; readonly folder: string }[] {
  const packages: { package: EnvPackage; folder: string }[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new ConfigError(`--pool ${path} does not exist`);
    const folders = existsSync(join(path, PACKAGE_FILES.manifest))
      ? [path]
      : statSync(path).isDirectory()
        ? readdirSync(path, { withFileTypes: true })
            .filter((entry) => entry.isDirectory() && existsSync(join(path, entry.name, PACKAGE_FILES.manifest)))
            .map((entry) => join(path, entry.name))
            .sort()
        : [path];
    if (folders.length === 0) throw new ConfigError(`--pool ${path} holds no package (a folder with ${PACKAGE_FILES.manifest}, or folders of them)`);
    for (const folder of folders) {
      const loaded = loadCandidate(folder);
      if ("invalid" in loaded) throw new ConfigError(`--pool ${folder}: ${loaded.invalid.message}`);
      packages.push({ package: loaded.package, folder });
    }
  }
  return packages;
}

/**
 * Parses a comma-separated list of gate names.
 * @throws ConfigError naming the unknown gate and the known ones
 */
export function parseGateList(list: string, flag: string): AdmissionGateName[] {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name.length > 0);
  for (const name of names) {
    if (!(ADMISSION_GATE_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(`${flag}: unknown gate "${name}"; gates are ${ADMISSION_GATE_NAMES.join(", ")}`);
    }
  }
  return names as AdmissionGateName[];
}

/**
 * The config of `envforge admit`: defaults, the config file, then flags.
 * @throws ConfigError for unknown gates or invalid keys
 */
export function resolveAdmitConfig(flags: AdmitFlags): Config {
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const admission = {
    ...(flags.gates === undefined ? {} : { gates: parseGateList(flags.gates, "--gates") }),
    ...(flags.skip === undefined ? {} : { skip: parseGateList(flags.skip, "--skip") }),
    ...(flags.benchmarks === undefined ? {} : { benchmarkPath: flags.benchmarks }),
  };
  const fromFlags = { admission, ...(flags.model === undefined ? {} : { model: { spec: flags.model } }) };
  return parseConfig(mergeConfigInput(fromFile, fromFlags), configSource(flags.config));
}

export type { AdmitJson } from "./admit-output.js";

/** The admission gates and their context, built once and used for many candidates. */
export interface AdmissionPipeline {
  readonly gates: AdmissionGate[];
  /** The ten seed environments (the start of the pool). */
  readonly seeds: readonly EnvPackage[];
  /** The pool's packages with the real path of the folder each was read from, one per folder. */
  readonly members: readonly { readonly package: EnvPackage; readonly folder: string }[];
  readonly context: AdmissionContext;
  readonly notes: string[];
  close(): Promise<void>;
}

/**
 * Builds the gates and context: the novelty pool is the ten seeds and the
 * `--pool` packages; the model-based gates run only with a model
 * (`--model`); without one they are left out with a note.
 * @param flags `gates` and `model` say whether gates and a model were asked for on the command line; `pool` names folders
 * @throws ConfigError when a model-based gate is asked for explicitly without a model
 */
export async function buildAdmissionPipeline(config: Config, flags: Pick<AdmitFlags, "gates" | "model" | "pool">, benchmarkPath: string | null): Promise<AdmissionPipeline> {
  // read before the sandbox starts, so a bad path fails without leaving it open
  const seedFolders = readdirSync(SEED_FOLDER, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join(SEED_FOLDER, entry.name)).sort();
  // one member per folder: a --pool that names a seed folder again (or twice) adds nothing
  const byFolder = new Map<string, EnvPackage>();
  for (const member of [...loadPoolFolders(seedFolders), ...loadPoolFolders(flags.pool ?? [])]) {
    const real = realpathSync(member.folder);
    if (!byFolder.has(real)) byFolder.set(real, member.package);
  }
  const members = [...byFolder].map(([folder, pkg]) => ({ package: pkg, folder }));
  const seeds = members.slice(0, seedFolders.length).map((member) => member.package);
  const pool = members.map((member) => member.package);
  // OpenEnv packages play in the terminal jail, made when the first one is opened
  const sandbox = terminalSandboxOf(openSandbox(config.sandbox), config);
  let gates = buildGates(config.admission);
  const notes: string[] = [];
  let model: LanguageModel | undefined;
  const modelGates = gates.filter((gate) => gate.usesModel).map((gate) => gate.name);
  if (modelGates.length > 0 && flags.model === undefined) {
    if (flags.gates !== undefined) throw new ConfigError(`--gates ${modelGates.join(",")} needs a language model: pass --model`);
    gates = gates.filter((gate) => !gate.usesModel);
    notes.push(`${modelGates.join(" and ")} not run: they need a language model (--model)`);
    if (gates.length === 0) throw new ConfigError(`no gate left to run: ${modelGates.join(" and ")} need a language model (--model)`);
  } else if (modelGates.length > 0) {
    model = await openModel(config.model.spec, modelOptionsOf(config));
  }
  const context: AdmissionContext = {
    ...admissionResources(config, benchmarkPath),
    sandbox,
    settings: config.admission,
    pool,
    ...(model === undefined
      ? {}
      : {
          model,
          solver: {
            maxTurns: config.solver.maxTurns,
            concurrency: config.solver.concurrency,
            policy: (play: number) => solverPolicy(model, { hint: null, maxTokens: config.solver.maxTokens, temperature: config.solver.temperature, seed: play, format: config.solver.format, historyChars: config.solver.historyChars }),
          },
        }),
  };
  return {
    gates,
    seeds,
    members,
    context,
    notes,
    async close() {
      await sandbox.close();
      await model?.close();
    },
  };
}

/**
 * `envforge admit PATH`: runs the pipeline on one package and prints the
 * verdict (`--json`: {@link AdmitJson}). Returns the exit code: 0 admitted, 1 rejected.
 * @throws ConfigError for usage and I/O problems (exit 2)
 */
export async function admitCommand(path: string, flags: AdmitFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const config = resolveAdmitConfig(flags);
  if (isHarborTaskFolder(path)) return admitTerminalCommand(path, config, flags.json, write);
  const loaded = loadCandidate(path);
  const pipeline = await buildAdmissionPipeline(config, flags, config.admission.benchmarkPath);
  try {
    for (const note of pipeline.notes) process.stderr.write(`envforge: ${note}\n`);
    const result =
      "invalid" in loaded
        ? { admitted: false, verdicts: [loaded.invalid], timingsMs: { static: 0 } }
        : await admit(poolMemberAt(path, pipeline.members) ?? loaded.package, pipeline.gates, pipeline.context);
    return writeAdmission(result, flags.json, write);
  } finally {
    await pipeline.close();
  }
}

/**
 * The pool's own package when `path` is the folder a pool member was read from (a seed admitted
 * against the seeds): admission leaves the candidate object itself out of the pool, while a copy
 * read from another folder is an `exact_copy` of its member.
 */
function poolMemberAt(path: string, members: AdmissionPipeline["members"]): EnvPackage | undefined {
  const here = realpathSync(path);
  return members.find((member) => member.folder === here)?.package;
}

/**
 * Admits candidates on the workers of the deployment at `flags.store` (`--workers remote`): one
 * admission job each, with the settings this command resolved, so the workers build the same gates.
 * @throws ConfigError without `--store`, or when a job failed on the workers after its retries
 */
async function admitRemotely(
  candidates: readonly { readonly candidate: EnvPackage; readonly pool: readonly EnvPackage[] }[],
  config: Config,
  flags: AdmitFlags,
  benchmarkPath: string | null,
): Promise<AdmissionResult[]> {
  if (flags.store === undefined) throw new ConfigError("--workers remote needs --store postgres://… (the deployment's database, where the workers take jobs)");
  if (!/^postgres(ql)?:\/\//.test(flags.store) || !URL.canParse(flags.store)) throw new ConfigError(`--store must be one PostgreSQL server's URL (postgres://user@host:5432/db), got ${JSON.stringify(redactedUrl(flags.store))}`);
  // the benchmark texts travel with the jobs (a worker reads no path a job names)
  const benchmarks = benchmarkPath === null ? null : readCorpus(benchmarkPath);
  const queue = await PgBossQueue.open(flags.store, { heartbeatSeconds: config.jobs.heartbeatSeconds, retryLimit: config.jobs.retryLimit, retryDelaySeconds: config.jobs.retryDelaySeconds, namespace: config.jobs.namespace });
  try {
    const payloads = candidates.map(({ candidate, pool }) => admissionPayload(candidate, pool, config, { ...flags, benchmarks }));
    process.stderr.write(`envforge: ${payloads.length} admission jobs enqueued on ${redactedUrl(flags.store)}; waiting for envforge worker processes (envforge worker --store URL --roles admission)\n`);
    return await admitOnWorkers(queue, payloads, {
      onOutcome: (done, total) => flags.onRemoteProgress?.(done, total),
      onWaiting: (status) =>
        process.stderr.write(
          `envforge: ${status.done} of ${status.done + status.pending} admissions done; ${status.queued} queued, ${status.active} running${status.active === 0 ? " (no worker is taking jobs: start envforge worker --store URL, with the same jobs.namespace)" : ""}\n`,
        ),
    });
  } finally {
    await queue.close();
  }
}

/** File of a fixture folder holding its {@link FixtureLabel}. */
export const FIXTURE_LABEL_FILE = "expected.json";
/** Benchmark texts an evaluation folder may ship, used when the config names none. */
export const EVALUATION_BENCHMARKS_FILE = "benchmarks.jsonl";

/** A fixture folder's `expected.json`: its label and the extra novelty pool it is admitted against. */
interface FixtureFile {
  readonly label: FixtureLabel;
  /** Paths from `pool` (package folders or folders of them, relative to the fixture folder), added to the seeds for this fixture only. */
  readonly pool: readonly string[];
}

function readFixtureFile(folder: string): FixtureFile {
  const path = join(folder, FIXTURE_LABEL_FILE);
  let raw: { gate?: unknown; reason?: unknown; pool?: unknown };
  try {
    raw = JSON.parse(readFileSync(path, "utf8")) as typeof raw;
  } catch (error) {
    throw new ConfigError(`${path}: ${(error as Error).message}`);
  }
  const gate = typeof raw.gate === "string" ? raw.gate : null;
  const reason = typeof raw.reason === "string" ? raw.reason : null;
  if ((gate === null) !== (reason === null)) throw new ConfigError(`${path} needs both "gate" and "reason", or neither (a good environment)`);
  if (raw.pool !== undefined && !(Array.isArray(raw.pool) && raw.pool.every((entry) => typeof entry === "string"))) {
    throw new ConfigError(`${path}: "pool" must be a list of paths (package folders relative to the fixture folder)`);
  }
  return { label: { gate, reason }, pool: ((raw.pool as string[] | undefined) ?? []).map((entry) => resolve(folder, entry)) };
}

/**
 * `envforge admit --eval DIR`: admits every fixture folder of DIR (each with
 * an `expected.json` label, and optionally a `pool` of package paths that join
 * the novelty pool for that fixture) and the ten seed environments (which must all be
 * admitted), concurrently up to `admission.concurrency`, and prints the
 * evaluation report (text output with control characters escaped). DIR's `benchmarks.jsonl` is the benchmark set unless the
 * config names one. Returns 0 on full detection without false rejections, else 1.
 * @throws ConfigError when DIR or a label is unreadable (exit 2)
 */
export async function evaluateCommand(dir: string, flags: AdmitFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  if (!existsSync(dir)) throw new ConfigError(`${dir} does not exist`);
  const config = resolveAdmitConfig(flags);
  if (isTerminalCorpus(dir)) return evaluateTerminalCommand(dir, config, flags.json, write);
  const shipped = join(dir, EVALUATION_BENCHMARKS_FILE);
  const benchmarkPath = config.admission.benchmarkPath ?? (existsSync(shipped) ? shipped : null);
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, FIXTURE_LABEL_FILE)))
    .map((entry) => entry.name)
    .sort();
  // an evaluation of nothing must not pass (a wrong path in CI would stay green)
  if (folders.length === 0) throw new ConfigError(`${dir} holds no labelled fixtures (folders with ${FIXTURE_LABEL_FILE})`);
  const pipeline = await buildAdmissionPipeline(config, flags, benchmarkPath);
  try {
    for (const note of pipeline.notes) process.stderr.write(`envforge: ${note}\n`);
    const basePool = pipeline.context.pool ?? [];
    const entries: { fixture: string; label: FixtureLabel; context: AdmissionContext; package?: EnvPackage; invalid?: RejectVerdict }[] = folders.map((name) => {
      const loaded = loadCandidate(join(dir, name));
      const file = readFixtureFile(join(dir, name));
      const context = file.pool.length === 0 ? pipeline.context : { ...pipeline.context, pool: [...basePool, ...loadPoolPackages(file.pool)] };
      return { fixture: name, label: file.label, context, ...("invalid" in loaded ? { invalid: loaded.invalid } : { package: loaded.package }) };
    });
    for (const seed of pipeline.seeds) entries.push({ fixture: `seed:${seed.manifest.name}`, label: { gate: null, reason: null }, context: pipeline.context, package: seed });
    const runnable = entries.filter((entry) => entry.package !== undefined);
    // admit never throws for a candidate, so one bad candidate cannot stop the others
    const results =
      flags.workers === "remote"
        ? await admitRemotely(
            runnable.map((entry) => ({ candidate: entry.package as EnvPackage, pool: entry.context.pool ?? [] })),
            config,
            flags,
            benchmarkPath,
          )
        : await mapWithConcurrency(runnable, admissionConcurrency(config.admission), (entry) => admit(entry.package as EnvPackage, pipeline.gates, entry.context));
    const byFixture = new Map(runnable.map((entry, index) => [entry.fixture, results[index]]));
    const outcomes: FixtureOutcome[] = entries.map((entry) => {
      const last = entry.invalid ?? byFixture.get(entry.fixture)?.verdicts.at(-1);
      return { fixture: entry.fixture, label: entry.label, rejectedBy: last?.status === "reject" ? last : null };
    });
    const report = scoreEvaluation(outcomes, pipeline.gates.map((gate) => gate.name));
    return writeEvaluationReport(report, flags.json, write);
  } finally {
    await pipeline.close();
  }
}
