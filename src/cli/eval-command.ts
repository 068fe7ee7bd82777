import { escapeControlCharacters } from "./terminal-text.js";
import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { configSource, mergeConfigInput, parseConfig, readConfigFile, type Config } from "../config/index.js";
import { compareEvaluations, comparisonWarnings, heldOutSeeds, levelsOf, parseLevelSelection, QUESTION_PROMPT_VERSION, runEvaluation, summarizeEvaluation, type LevelSelection, type PlannedEnvironment, type SuitePlan } from "../core/eval/index.js";
import { ensureHoldout, readHoldout, withoutHoldout } from "../core/holdout/index.js";
import { DEFAULT_HISTORY_CHARS } from "../core/selfplay/index.js";
import { classifyModelSpec, openModel } from "../adapters/llm/index.js";
import { loadPackageFolders, loadSeedPackages } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { SqliteEvalStore } from "../adapters/store/index.js";
import { BFCL_CATEGORIES, BFCL_STEP_LIMIT, bfclPackages, withBfclRuntime } from "../adapters/suites/bfcl/bfcl-suite.js";
import { bucketOfTask, DEFAULT_REASONING_GYM_TASKS, REASONING_GYM_TABLE_VERSION, ReasoningGymSuite, taskParameters } from "../adapters/suites/reasoning-gym/index.js";
import { ConfigError, packageId, type EvalRecord, type LanguageModel, type QuestionSuite, type Sandbox, type Store, type TerminalTask } from "../spec/index.js";
import { terminalPackage } from "../core/terminal/index.js";
import { readHarborTaskFolders } from "../adapters/terminal/index.js";
import { terminalSandboxOf } from "./terminal-runtime.js";
import { checkpointSteps, openCheckpointModel, storedRunConfig } from "./eval-model.js";
import { createEvalProgress } from "./eval-progress.js";
import { evaluationJson, formatComparison, formatEvaluation, planDifferences, planSummary } from "./eval-report.js";
import { modelOptionsOf } from "./model-options.js";
import { onStopSignals } from "./stop-signals.js";
import { openRunFolderStore } from "../adapters/store/index.js";

/** Flags of `envforge eval`; each maps to one config key (`eval.*`, `model.spec`) or selects what to do. */
export interface EvalFlags {
  readonly config?: string;
  readonly model?: string;
  readonly run?: string;
  readonly step?: number;
  readonly suite?: readonly string[];
  readonly tasks?: string;
  readonly difficulty?: string;
  readonly items?: number;
  readonly episodes?: number;
  readonly bfclEntries?: number;
  readonly bfclStepLimit?: number;
  readonly seed?: number;
  readonly holdout?: number;
  readonly concurrency?: number;
  /**
   * Levels to play the environment suites at: `0,2,5` or `all` (CLI only; no config key yet).
   * Absent: each environment once at its default level, 0.
   */
  readonly levels?: string;
  readonly maxTokens?: number;
  readonly temperature?: number;
  /** Seconds per generation. */
  readonly timeout?: number;
  readonly store?: string;
  readonly json?: boolean;
  readonly compare?: readonly string[];
  readonly list?: boolean;
}

/**
 * The config of `envforge eval`: defaults, then (with `--run`) the run's stored config, then the
 * config file, then flags.
 * @throws ConfigError naming the key and allowed values
 */
export function resolveEvalConfig(flags: EvalFlags): Config {
  // a run's config without its eval block (suites and sizes are this evaluation's), but with the fraction its holdout
  // split was made with (eval.holdoutAtStart), so `--suite holdout` finds the split the run made
  const base = flags.run === undefined ? {} : runBase(storedRunConfig(flags.run) as unknown as Record<string, unknown>);
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const evalFlags = {
    ...(flags.suite === undefined ? {} : { suites: [...flags.suite] }),
    ...(flags.tasks === undefined ? {} : { tasks: flags.tasks.split(",").map((task) => task.trim()).filter((task) => task.length > 0) }),
    ...(flags.difficulty === undefined ? {} : { difficulty: flags.difficulty }),
    ...(flags.items === undefined ? {} : { items: flags.items }),
    ...(flags.episodes === undefined ? {} : { episodes: flags.episodes }),
    ...(flags.bfclEntries === undefined ? {} : { bfclEntries: flags.bfclEntries }),
    ...(flags.bfclStepLimit === undefined ? {} : { bfclStepLimit: flags.bfclStepLimit }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
    ...(flags.holdout === undefined ? {} : { holdoutFraction: flags.holdout }),
    ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
    ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
    ...(flags.temperature === undefined ? {} : { temperature: flags.temperature }),
    ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
    ...(flags.store === undefined ? {} : { store: flags.store }),
  };
  const fromFlags = { eval: evalFlags, ...(flags.model === undefined ? {} : { model: { spec: flags.model } }) };
  const config = parseConfig(mergeConfigInput(mergeConfigInput(base, fromFile), fromFlags), configSource(flags.config));
  classifyModelSpec(config.model.spec);
  for (const suite of config.eval.suites) {
    if (!["rg", "heldout-seeds", "holdout", "bfcl"].includes(suite) && !suite.startsWith("envs:") && !suite.startsWith("terminal:") && !suite.startsWith("bfcl:")) {
      throw new ConfigError(`eval.suites: unknown suite "${suite}"; use rg, heldout-seeds, holdout, envs:<folder>, terminal:<folder>, bfcl or bfcl:<categories>`);
    }
    if (suite === "holdout" && flags.run === undefined) throw new ConfigError(`eval.suites "holdout" is the holdout split of a run's pool: give --run <dir>`);
  }
  return config;
}

/** The eval store's path: `eval.store`, else `<run>/eval.db` with `--run`, else `runs/eval.db`. */
export function evalStorePath(config: Config, run: string | undefined): string {
  return config.eval.store ?? (run === undefined ? join("runs", "eval.db") : join(run, "eval.db"));
}

/**
 * Refuses an eval store path that is a folder (SQLite would say only "disk I/O error").
 * @throws ConfigError naming the folder and a file path to give instead
 */
function refuseFolderStore(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new ConfigError(`the eval store ${path} is a folder, not a store file; give a file path (e.g. ${join(path, "eval.db")})`);
  }
}

/**
 * `envforge eval`: evaluates a model (or a run's checkpoint) on the configured suites, storing
 * every item as it finishes; `--compare A B` and `--list` read the store instead. Returns the exit
 * code: 0, or 1 when every item failed with a model error. With `--levels`, every episode seed of
 * the environment suites is played at each level ({@link levelsOf}: a levelled environment must
 * have every listed level; a family of one level plays level 0 and skips the others with a note);
 * Reasoning Gym ignores it with a warning. The store file is opened only once the model (and the
 * sandbox) are open, so an evaluation that fails to start leaves no empty store behind.
 *
 * @throws ConfigError for bad flags or config, before any model loads
 * @throws LevelOutOfRangeError for a listed level a levelled environment lacks, before any model loads
 */
export async function evalCommand(flags: EvalFlags): Promise<number> {
  if (flags.compare !== undefined && flags.list === true) throw new ConfigError("--list and --compare read the store in two different ways: give one of them");
  if (flags.compare !== undefined || flags.list === true) return readStoreCommand(flags);
  if (flags.step !== undefined && flags.run === undefined) throw new ConfigError("--step needs --run <dir>");
  if (flags.run !== undefined && flags.model !== undefined) throw new ConfigError("give either --model or --run (the run's model at --step), not both");
  const config = resolveEvalConfig(flags);
  const storePath = evalStorePath(config, flags.run);
  refuseFolderStore(storePath);
  const settings = config.eval;
  const levels = flags.levels === undefined ? null : parseLevelSelection(flags.levels);
  if (levels !== null && settings.suites.includes("rg")) process.stderr.write("envforge: --levels applies to environment suites; reasoning-gym ignores it\n");

  const questionSuite: QuestionSuite | null = settings.suites.includes("rg") ? new ReasoningGymSuite() : null;
  const runStore = flags.run === undefined ? null : openRunFolderStore(flags.run);
  let model: LanguageModel | null = null;
  let sandbox: Sandbox | null = null;
  let evalStore: SqliteEvalStore | null = null;
  const progress = createEvalProgress();
  let removeStopHandlers = () => {};
  try {
    const { plans, versions } = await planSuites(config, questionSuite, runStore, levels);
    const step = flags.run === undefined ? null : (flags.step ?? checkpointSteps(flags.run).at(-1) ?? 0);
    const checkpoint = flags.run === undefined ? null : `${resolve(flags.run)}@step-${step}`;
    const plan = planDocument(config, plans);
    const record: Omit<EvalRecord, "finishedAt"> = {
      id: createHash("sha256").update(JSON.stringify({ model: config.model.spec, checkpoint, plan })).digest("hex").slice(0, 12),
      model: config.model.spec,
      checkpoint,
      suiteVersion: versions.join(" / "),
      plan,
      createdAt: new Date().toISOString(),
    };
    if (plans.some((suite) => suite.kind === "environments")) {
      sandbox = openSandbox(config.sandbox, (message) => process.stderr.write(`envforge: ${message}\n`));
      // terminal tasks (a terminal: suite, terminal environments of a run's holdout) play in their jail, made when first needed;
      // BFCL entries through BFCL's bridge
      sandbox = withBfclRuntime(terminalSandboxOf(sandbox, config), { stepLimit: config.eval.bfclStepLimit });
    }
    // the engine options come from the eval's config (the run's stored config overridden by --config), not the run's alone
    const engine = { ...modelOptionsOf(config), sequences: settings.concurrency };
    model = flags.run === undefined ? await openModel(config.model.spec, engine) : (await openCheckpointModel(flags.run, step ?? 0, engine)).model;
    // the store is opened only now, so an evaluation that fails before its first write (no model, no sandbox) leaves no empty store file
    evalStore = new SqliteEvalStore(storePath);
    removeStopHandlers = onStopSignals(() => {
      progress.stop();
      process.stderr.write(`\nenvforge: interrupted; finished items are stored in ${storePath}. Run the same command again to resume eval ${record.id}.\n`);
    });
    const items = await runEvaluation({
      record,
      store: evalStore,
      model,
      ...(sandbox === null ? {} : { sandbox }),
      suites: plans,
      questions: { maxTokens: settings.maxTokens, temperature: settings.temperature, seed: settings.seed },
      episodes: { maxTurns: config.solver.maxTurns, maxTokens: config.solver.maxTokens, temperature: settings.temperature, format: config.solver.format, historyChars: config.solver.historyChars, concurrency: settings.concurrency },
      generationTimeoutMs: settings.timeoutMs,
      concurrency: settings.concurrency,
      progress,
    });
    progress.stop();
    const stored = evalStore.findEval(record.id) as EvalRecord;
    const summary = summarizeEvaluation(items);
    process.stdout.write(flags.json === true ? `${JSON.stringify(evaluationJson(stored, summary, storePath), null, 2)}\n` : `${formatEvaluation(stored, summary, storePath)}\n`);
    const modelErrors = items.filter((item) => item.error?.code === "model_timeout" || item.error?.code === "model_failed").length;
    if (items.length > 0 && modelErrors === items.length) {
      process.stderr.write("envforge: the model answered no item; see the errors in the store\n");
      return 1;
    }
    return 0;
  } finally {
    removeStopHandlers();
    progress.stop();
    await questionSuite?.close();
    await model?.close();
    await sandbox?.close();
    evalStore?.close();
    runStore?.close();
  }
}

/**
 * The suites of the config as plans, and the versions they are stored under.
 * @param levels `--levels`, or null to play each environment once at its default level
 */
async function planSuites(config: Config, questionSuite: QuestionSuite | null, runStore: Store | null, levels: LevelSelection | null): Promise<{ plans: SuitePlan[]; versions: string[] }> {
  const settings = config.eval;
  const planned = (suite: string, environments: readonly { id: string; package: PlannedEnvironment["package"] }[]) => plannedEnvironments(suite, environments, settings.episodes, settings.seed, levels);
  const plans: SuitePlan[] = [];
  const versions: string[] = [];
  for (const name of settings.suites) {
    if (name === "rg" && questionSuite !== null) {
      const info = await questionSuite.info();
      const categories = new Map(info.tasks.map((task) => [task.name, task.category]));
      const wanted = settings.tasks === null ? DEFAULT_REASONING_GYM_TASKS : settings.tasks.length === 1 && settings.tasks[0] === "all" ? info.tasks.map((task) => task.name).filter((task) => task !== "composite") : settings.tasks;
      const unknown = wanted.filter((task) => !categories.has(task));
      if (unknown.length > 0) process.stderr.write(`envforge: unknown Reasoning Gym task(s) ${unknown.join(", ")}: their items count as unknown_task errors (\`--tasks all\` alone lists every task)\n`);
      plans.push({
        kind: "questions",
        name: "reasoning-gym",
        suite: questionSuite,
        // an unknown task stays in the plan: its items are stored with the typed error unknown_task
        tasks: wanted.map((task) => ({ name: task, bucket: bucketOfTask(task, categories.get(task) ?? ""), config: taskParameters(task, settings.difficulty) })),
        items: settings.items,
        seed: settings.seed,
      });
      versions.push(`reasoning-gym ${info.version} ${settings.difficulty} ${REASONING_GYM_TABLE_VERSION} ${QUESTION_PROMPT_VERSION}`);
    } else if (name === "heldout-seeds") {
      const environments = runStore === null ? loadSeedPackages().map((pkg) => ({ id: packageId(pkg), package: pkg })) : withoutHoldout(runStore.listEnvironments(), readHoldout(runStore));
      plans.push({ kind: "environments", name: "heldout-seeds", environments: planned("heldout-seeds", environments) });
      versions.push("envforge heldout-seeds v1");
    } else if (name === "holdout" && runStore !== null) {
      const split = ensureHoldout(runStore, settings.holdoutFraction, settings.seed);
      if (split.roundsBefore > 0) process.stderr.write(`envforge: the holdout split was made after ${split.roundsBefore} round(s) of training had begun; those rounds may have sampled its environments\n`);
      const held = new Set(split.ids);
      plans.push({ kind: "environments", name: "holdout", environments: planned("holdout", runStore.listEnvironments().filter((record) => held.has(record.id))) });
      versions.push(`envforge holdout ${split.ids.length}/${split.poolSize}`);
    } else if (name.startsWith("envs:")) {
      const folder = name.slice("envs:".length);
      if (folder === "") throw new ConfigError(`eval.suites "${name}": name a folder of environment packages, e.g. envs:envs/seeds`);
      if (!existsSync(folder)) throw new ConfigError(`eval.suites ${name}: ${folder} does not exist`);
      if (!statSync(folder).isDirectory()) throw new ConfigError(`eval.suites ${name}: ${folder} is not a folder (give a folder of environment packages)`);
      const packages = loadPackageFolders(folder);
      if (packages.length === 0) throw new ConfigError(`eval.suites ${name}: ${folder} holds no environment packages (sub-folders with env.json, env.py or oracle.py)`);
      plans.push({ kind: "environments", name, environments: planned(name, packages.map((pkg) => ({ id: packageId(pkg), package: pkg }))) });
      versions.push(`envforge ${name}`);
    } else if (name === "bfcl" || name.startsWith("bfcl:")) {
      const categories = bfclCategoriesOf(name);
      if (config.model.contextSize < 16_384) process.stderr.write(`envforge: ${name}: BFCL prompts hold 3,000 to 5,000 tokens of tools; model.contextSize is ${config.model.contextSize}, so many items will fail (use --config configs/bfcl-eval.json: 16384)\n`);
      const packages = await bfclPackages(categories, settings.bfclEntries, 0, { stepLimit: settings.bfclStepLimit });
      // one episode per entry (an entry is one fixed task), capped at BFCL's own step limit per user turn
      plans.push({ kind: "environments", name, environments: packages.map((pkg) => ({ id: packageId(pkg), package: pkg, seeds: [settings.seed], maxTurns: pkg.manifest.maxTurns })) });
      versions.push(`bfcl-eval 2026.3.23 ${categories.join(",")} first ${settings.bfclEntries}${settings.bfclStepLimit === BFCL_STEP_LIMIT ? "" : `, ${settings.bfclStepLimit} steps per turn`}`);
    } else if (name.startsWith("terminal:")) {
      const tasks = readTerminalSuite(name, name.slice("terminal:".length));
      const packages = tasks.map((task) => terminalPackage(task, config.solver.maxTurns));
      plans.push({ kind: "environments", name, environments: planned(name, packages.map((pkg) => ({ id: packageId(pkg), package: pkg }))) });
      versions.push(`envforge ${name} (terminal, ${config.solver.maxTurns} commands)`);
    }
  }
  return { plans, versions };
}

/** A stored run config as the base of an evaluation's: its eval block dropped but for `holdoutFraction`. */
function runBase(stored: Record<string, unknown>): Record<string, unknown> {
  const { eval: evalBlock, ...rest } = stored;
  const fraction = (evalBlock as { holdoutFraction?: unknown } | undefined)?.holdoutFraction;
  return { ...rest, ...(typeof fraction === "number" ? { eval: { holdoutFraction: fraction } } : {}) };
}

/**
 * The BFCL categories of a `bfcl` (multi_turn_base) or `bfcl:<categories>` suite.
 * @throws ConfigError for an unknown category, naming the four there are
 */
function bfclCategoriesOf(name: string): string[] {
  if (name === "bfcl") return ["multi_turn_base"];
  const categories = [...new Set(name.slice("bfcl:".length).split(",").map((category) => category.trim()).filter((category) => category !== ""))];
  if (categories.includes("multi_turn_miss_func")) {
    throw new ConfigError(`eval.suites ${name}: multi_turn_miss_func is not played: its held-out functions join the tools mid-entry, and an episode's tools are fixed at reset (docs/bfcl.md); use ${BFCL_CATEGORIES.join(", ")}`);
  }
  const unknown = categories.filter((category) => !(BFCL_CATEGORIES as readonly string[]).includes(category));
  if (categories.length === 0 || unknown.length > 0) throw new ConfigError(`eval.suites ${name}: unknown BFCL categor${unknown.length === 1 ? "y" : "ies"} ${unknown.join(", ") || "(none given)"}; use ${BFCL_CATEGORIES.join(", ")}`);
  return categories;
}

/**
 * The Harbor task folders of a `terminal:<folder>` suite (sub-folders with task.toml), read.
 * @throws ConfigError when the folder is missing, holds no task, or a task does not read (its static verdict)
 */
function readTerminalSuite(name: string, folder: string): TerminalTask[] {
  if (folder === "" || !existsSync(folder) || !statSync(folder).isDirectory()) throw new ConfigError(`eval.suites ${name}: name a folder of Harbor task folders, e.g. terminal:envs/terminal-seeds`);
  const tasks = readHarborTaskFolders(folder)
    .map((task) => {
      if ("status" in task) throw new ConfigError(`eval.suites ${name}: ${String(task.evidence?.folder ?? folder)}: ${task.message}`);
      return task;
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  if (tasks.length === 0) throw new ConfigError(`eval.suites ${name}: ${folder} holds no Harbor task folders (sub-folders with task.toml)`);
  return tasks;
}

/**
 * The environments of a suite with their held-out seeds and, with `--levels`, their levels. A
 * family of one level that `levels` gives no level (the list lacks 0) is left out; the levels
 * skipped for such families are noted on stderr.
 * @throws LevelOutOfRangeError for a listed level a levelled environment lacks
 * @throws ConfigError when no environment of the suite has any listed level
 */
function plannedEnvironments(
  suite: string,
  environments: readonly { id: string; package: PlannedEnvironment["package"] }[],
  episodes: number,
  seed: number,
  levels: LevelSelection | null,
): PlannedEnvironment[] {
  const skipped: string[] = [];
  const plans = environments.flatMap((environment): PlannedEnvironment[] => {
    const base = { id: environment.id, package: environment.package, seeds: heldOutSeeds(environment.id, episodes, seed) };
    if (levels === null) return [base];
    const played = levelsOf(environment.package.manifest, levels);
    if (played.skipped.length > 0) skipped.push(environment.package.manifest.name);
    return played.levels.length === 0 ? [] : [{ ...base, levels: played.levels }];
  });
  if (levels !== null && environments.length > 0 && plans.length === 0) {
    throw new ConfigError(`--levels ${levels === "all" ? "all" : levels.join(",")}: no environment of suite ${suite} has these levels (its environments have one level, 0)`);
  }
  if (skipped.length > 0 && levels !== null && levels !== "all") {
    const above = levels.filter((level) => level > 0).join(", ");
    process.stderr.write(`envforge: ${suite}: ${skipped.length} environment(s) of one level (${skipped.slice(0, 5).join(", ")}${skipped.length > 5 ? ", …" : ""}) skip level(s) ${above}${levels.includes(0) ? "; they play level 0" : " and are left out"}\n`);
  }
  return plans;
}

/** The plan as stored (and hashed into the eval id): what decides which items are asked, and how. */
function planDocument(config: Config, plans: readonly SuitePlan[]): unknown {
  const settings = config.eval;
  return {
    suites: plans.map((suite) =>
      suite.kind === "questions"
        ? { name: suite.name, tasks: suite.tasks.map((task) => ({ name: task.name, config: task.config })), items: suite.items, seed: suite.seed, difficulty: settings.difficulty }
        : // levels only when planned, so evaluations planned without --levels keep their ids (and resume)
          { name: suite.name, environments: suite.environments.map((environment) => ({ id: environment.id, name: environment.package.manifest.name, seeds: environment.seeds, ...(environment.levels === undefined ? {} : { levels: environment.levels }) })) },
    ),
    questions: { maxTokens: settings.maxTokens, temperature: settings.temperature },
    // the format only when not the default, so evaluations planned before solver.format keep their ids (and resume)
    // keys at their defaults stay out of the plan, so an evaluation's id does not change when a key is added
    episodes: {
      maxTurns: config.solver.maxTurns,
      maxTokens: config.solver.maxTokens,
      temperature: settings.temperature,
      ...(config.solver.format === "action" ? {} : { format: config.solver.format }),
      ...(config.solver.historyChars === DEFAULT_HISTORY_CHARS ? {} : { historyChars: config.solver.historyChars }),
    },
  };
}

/** `--list` and `--compare A B`: read the eval store. */
function readStoreCommand(flags: EvalFlags): number {
  const config = resolveEvalConfig({ ...(flags.config === undefined ? {} : { config: flags.config }), ...(flags.store === undefined ? {} : { store: flags.store }) });
  const path = evalStorePath(config, flags.run);
  refuseFolderStore(path);
  if (!existsSync(path)) {
    // a new user's `eval --list` before any evaluation: nothing to list, not an error (a --store given by hand is likely a typo)
    if (flags.list === true && flags.store === undefined) {
      process.stdout.write(flags.json === true ? "[]\n" : `no evaluations yet: ${path} does not exist (envforge eval writes it; another store: --store FILE)\n`);
      return 0;
    }
    throw new ConfigError(`no eval store at ${path}${flags.store === undefined ? " (give --store)" : ""}`);
  }
  const store = new SqliteEvalStore(path, { readOnly: true });
  try {
    if (flags.list === true) {
      const records = store.listEvals().map((record) => ({ ...record, items: store.listItems(record.id).length }));
      if (records.length === 0 && flags.json !== true) {
        process.stdout.write(`no evaluations in ${path}\n`);
        return 0;
      }
      process.stdout.write(
        flags.json === true
          ? `${JSON.stringify(records.map(({ plan: _plan, ...record }) => record), null, 2)}\n`
          : `${records.map((record) => `${record.id}  ${record.createdAt}  ${record.finishedAt === null ? "unfinished" : "finished  "}  ${record.items} items  ${record.model}${record.checkpoint === null ? "" : ` at ${record.checkpoint}`}  ${record.suiteVersion}  (${planSummary(record.plan)})`).join("\n")}\n`,
      );
      return 0;
    }
    const [first, second] = flags.compare ?? [];
    if (first === undefined || second === undefined || (flags.compare?.length ?? 0) > 2) throw new ConfigError(`--compare takes two eval ids (or unique prefixes; see --list), not ${flags.compare?.length ?? 0}`);
    const find = (id: string) => {
      const record = id.length === 0 ? undefined : store.findEval(id);
      if (record !== undefined) return record;
      const matches = id.length === 0 ? [] : store.listEvals().filter((stored) => stored.id.startsWith(id));
      throw new ConfigError(
        matches.length > 1
          ? `--compare: the prefix ${id} matches ${matches.length} evals (${matches.map((stored) => stored.id).join(", ")}); give more of the id`
          : `--compare: no eval with id or prefix "${id}" in ${path} (see --list)`,
      );
    };
    const a = find(first);
    const b = find(second);
    if (a.id === b.id) throw new ConfigError(`--compare: ${first} and ${second} are the same evaluation (${a.id}); give two different ids (see --list)`);
    const [summaryA, summaryB] = [summarizeEvaluation(store.listItems(a.id)), summarizeEvaluation(store.listItems(b.id))];
    const rows = compareEvaluations(summaryA, summaryB);
    const settings = planDifferences(a.plan, b.plan);
    const warnings = [...(settings.length > 0 ? [`the evaluations were planned differently (${settings.join("; ")}): rows compare different questions or settings`] : []), ...comparisonWarnings(summaryA, summaryB)];
    process.stdout.write(
      flags.json === true
        ? `${JSON.stringify({ a: { id: a.id, model: a.model, checkpoint: a.checkpoint }, b: { id: b.id, model: b.model, checkpoint: b.checkpoint }, rows, warnings }, null, 2)}\n`
        : `${formatComparison(a, b, rows)}\n${warnings.map((warning) => `warning: ${escapeControlCharacters(warning)}\n`).join("")}`,
    );
    return 0;
  } finally {
    store.close();
  }
}
