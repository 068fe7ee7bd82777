import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { mergeConfigInput, readConfigFile } from "../config/index.js";
import { storedLevelWindows, type LevelSettings } from "../core/curriculum/index.js";
import { RUN_FILES, signalFigures, type SignalFigures } from "../core/selfplay/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { ConfigError, type RoundReport } from "../spec/index.js";

/** Flags of `envforge bench signal`. */
export interface BenchSignalFlags {
  /** Comma-separated model specs. @default "embedded,embedded:qwen2.5-coder-0.5b" */
  readonly models?: string;
  /** Rounds per arm. @default 4 */
  readonly rounds?: number;
  /** Plays per environment and hint condition. @default 4 */
  readonly plays?: number;
  /** Seed environments played per round. @default 10 */
  readonly environments?: number;
  /** Master seed (the same in every arm). @default 0 */
  readonly seed?: number;
  /** Where the arms' run folders go. @default runs/bench-signal-<UTC timestamp> */
  readonly out?: string;
  /** Config file under every arm's settings (e.g. solver.format). */
  readonly config?: string;
  readonly json?: boolean;
}

/** One arm of the bench: a model under one controller, with its figures. */
export interface SignalArm {
  readonly model: string;
  readonly controller: LevelSettings["controller"];
  readonly out: string;
  readonly exitCode: number;
  readonly seconds: number;
  readonly figures: SignalFigures | null;
  /** Milliseconds the level controller took per Solver rollout (window replay from the store and level draws). */
  readonly controllerMsPerRollout: number | null;
}

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "envforge.js");

/**
 * `envforge bench signal`: for each model, two runs of the real self-play loop
 * with the same seeds and budget (the seed environments only: no Designer, the
 * `noop` trainer, so the policy is the same in both), one with every
 * environment at its `difficulty.staticLevel` (its fixed size before levels)
 * and one with the adaptive level controller; prints per arm the fraction of
 * Solver groups whose returns differ (GRPO's learning signal, not only the
 * invalid-action penalty), the win rates, the invalid-action share, the
 * windows that rose and the controller's overhead per rollout.
 *
 * @returns 0 when every arm ran, 1 otherwise
 * @throws ConfigError for a bad flag or config file
 */
export async function benchSignalCommand(flags: BenchSignalFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  // with --json, stdout holds the JSON document alone; the progress lines go to stderr
  const say = flags.json === true ? (text: string) => void process.stderr.write(text) : write;
  const models = (flags.models ?? "embedded,embedded:qwen2.5-coder-0.5b").split(",").map((model) => model.trim()).filter((model) => model.length > 0);
  if (models.length === 0) throw new ConfigError("--models names no model");
  const base = flags.config === undefined ? {} : readConfigFile(flags.config);
  const rounds = flags.rounds ?? 4;
  const plays = flags.plays ?? 4;
  const environments = flags.environments ?? 10;
  const seed = flags.seed ?? 0;
  const out = flags.out ?? join("runs", `bench-signal-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(out, { recursive: true });
  say(`signal bench: ${models.join(", ")}; ${rounds} rounds x ${environments} seed environments x ${plays} plays per hint condition; seed ${seed}; runs in ${out}\n`);
  say(`machine: ${availableParallelism()} cores, load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}\n`);
  const arms: SignalArm[] = [];
  for (const model of models) {
    for (const controller of ["static", "adaptive"] as const) {
      const folder = join(out, `${model.replace(/[^a-zA-Z0-9.-]+/g, "_")}-${controller}`);
      const config = mergeConfigInput(base, {
        rounds,
        plays,
        seed,
        out: folder,
        model: { spec: model },
        trainer: { backend: "noop" },
        designer: { designs: 0 },
        solver: { environments },
        levels: { controller },
      });
      mkdirSync(folder, { recursive: true });
      const configPath = join(folder, "bench-config.json");
      writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
      say(`${model} ${controller}: running (log ${join(folder, "run.log")}) ...\n`);
      const started = performance.now();
      const exitCode = await runArm(configPath, join(folder, "run.log"));
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      const arm = measureArm(model, controller, folder, exitCode, seconds, (config as { levels: LevelSettings }).levels);
      arms.push(arm);
      say(`${formatArm(arm)}\n`);
    }
  }
  say(`${formatComparison(arms)}\n`);
  if (flags.json === true) write(`${JSON.stringify({ rounds, plays, environments, seed, arms }, null, 2)}\n`);
  return arms.every((arm) => arm.exitCode === 0 && arm.figures !== null) ? 0 : 1;
}

/** Runs `envforge run --config FILE` as a child process, its output to `log`; resolves with its exit code. */
function runArm(configPath: string, log: string): Promise<number> {
  return new Promise((resolveExit) => {
    const output = createWriteStream(log);
    const child = spawn(process.execPath, [CLI, "run", "--config", configPath], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
    child.on("close", (code) => {
      output.end();
      resolveExit(code ?? 1);
    });
  });
}

/** The figures of a finished arm from its report and store, with the controller's overhead replayed from the store. */
function measureArm(model: string, controller: SignalArm["controller"], folder: string, exitCode: number, seconds: number, levels: LevelSettings): SignalArm {
  const reportPath = join(folder, RUN_FILES.report);
  if (!existsSync(reportPath)) return { model, controller, out: folder, exitCode, seconds, figures: null, controllerMsPerRollout: null };
  const reports = JSON.parse(readFileSync(reportPath, "utf8")) as RoundReport[];
  const figures = signalFigures(reports);
  const store = new SqliteStore(join(folder, RUN_FILES.store));
  try {
    const environments = store.listEnvironments();
    const started = performance.now();
    // what the Solver phase does each round: replay the windows from the stored rounds before it
    for (const report of reports) storedLevelWindows(store, environments, report.round, levels);
    const milliseconds = performance.now() - started;
    return { model, controller, out: folder, exitCode, seconds, figures, controllerMsPerRollout: figures.episodes === 0 ? null : milliseconds / figures.episodes };
  } finally {
    store.close();
  }
}

const percent = (value: number | null) => (value === null ? "n/a" : `${(100 * value).toFixed(1)} %`);

/** One arm as a line of the bench's output. */
export function formatArm(arm: SignalArm): string {
  if (arm.figures === null) return `  ${arm.model} ${arm.controller}: no report (exit ${arm.exitCode}; see ${arm.out}/run.log)`;
  const f = arm.figures;
  return (
    `  ${arm.model} ${arm.controller}: signal ${f.returnVariance}/${f.groups} groups = ${percent(f.signalFraction)} (penalty only ${f.penaltyOnly}); ` +
    `win rate ${percent(f.winRateNoHint)} without hint, ${percent(f.winRateHint)} with; invalid actions ${percent(f.invalidActionRate)}; ` +
    `${f.episodes} episodes in ${arm.seconds} s; windows raised ${f.windowsRaised}, highest level ${f.highestLevel}; ` +
    `controller ${arm.controllerMsPerRollout === null ? "n/a" : `${arm.controllerMsPerRollout.toFixed(3)} ms`}/rollout`
  );
}

/** Adaptive against static per model: the signal fractions and their ratio. */
export function formatComparison(arms: readonly SignalArm[]): string {
  const lines = ["adaptive vs static (fraction of Solver groups with a learning signal):"];
  for (const model of [...new Set(arms.map((arm) => arm.model))]) {
    const of = (controller: SignalArm["controller"]) => arms.find((arm) => arm.model === model && arm.controller === controller)?.figures?.signalFraction ?? null;
    const adaptive = of("adaptive");
    const fixed = of("static");
    const ratio = adaptive === null || fixed === null ? "n/a" : fixed === 0 ? (adaptive > 0 ? "inf" : "n/a") : `${(adaptive / fixed).toFixed(2)}x`;
    lines.push(`  ${model}: adaptive ${percent(adaptive)}, static ${percent(fixed)}, ratio ${ratio}`);
  }
  return lines.join("\n");
}
