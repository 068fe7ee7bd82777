import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, readConfigFile, type Config } from "../config/index.js";
import { buildGates } from "../core/admission/index.js";
import { CheckpointingTrainer, PROBE_COMPLETION, PROBE_MESSAGES, probeDatum, RUN_FILES, runSelfPlay, runTrainingStep } from "../core/selfplay/index.js";
import { designerCorpus } from "./designer-corpus.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { ConfigError, packageId, type Datum, type EpisodeRecord, type LanguageModel, type RoundReport, type Trainer, type Turn } from "../spec/index.js";
import { admissionResources } from "./admission-resources.js";
import { ZeroLatencyPolicy, ZeroLatencyTrainingClient } from "./bench-training-fakes.js";
import { openTrainer } from "./open-trainer.js";

/** Flags of `envforge bench training`. */
export interface BenchTrainingFlags {
  /** Print JSON. */
  readonly json?: boolean;
  /** Also run the same rounds against the configured trainer and its policy (the reference trainer by default). */
  readonly real?: boolean;
  /** A config file whose keys override the quick-start defaults. */
  readonly config?: string;
}

/** Seconds of one benchmarked run. */
export interface TrainingBenchRun {
  /** Wall seconds of each step (one round = one step). */
  readonly secondsPerStep: readonly number[];
  readonly meanSecondsPerStep: number;
  /** Seconds per phase of each step. */
  readonly phaseSeconds: readonly (RoundReport["phaseSeconds"] | null)[];
  /** Datums trained on in each step. */
  readonly datums: readonly number[];
}

/** What `envforge bench training --json` prints. */
export interface TrainingBenchReport {
  readonly config: { readonly rounds: number; readonly environments: number; readonly plays: number; readonly maxTurns: number; readonly designs: number };
  readonly machine: { readonly cores: number; readonly loadAverage: readonly number[] };
  /** The orchestrator alone: zero-latency fake policy and trainer (real sandbox and store). */
  readonly orchestrator: TrainingBenchRun;
  /**
   * Seconds of one training step's own work on a synthetic quick-start batch with varied rewards
   * (advantages, datums from token trajectories, importance correction, the zero-latency trainer):
   * the part the fake rounds skip when every group is constant.
   */
  readonly syntheticStep: { readonly seconds: number; readonly datums: number; readonly tokens: number };
  /** The same rounds with the configured trainer and its policy; null without `--real`. */
  readonly real: TrainingBenchRun | null;
  /** orchestrator mean seconds per step ÷ real mean seconds per step (issue 6 target ≤ 0.05); null without `--real`. */
  readonly overheadFraction: number | null;
}

async function benchRun(config: Config, open: (outDir: string, store: SqliteStore) => Promise<{ trainer: Trainer; model: LanguageModel; probe: Datum | null; close(): Promise<void> }>): Promise<TrainingBenchRun> {
  const outDir = mkdtempSync(join(tmpdir(), "envforge-bench-training-"));
  const store = new SqliteStore(join(outDir, RUN_FILES.store));
  const sandbox = openSandbox(config.sandbox);
  const opened = await open(outDir, store);
  try {
    const result = await runSelfPlay({
      config: { ...config, out: outDir },
      outDir,
      resume: false,
      store,
      model: opened.model,
      sandbox,
      trainer: opened.trainer,
      corpus: designerCorpus(config),
      seeds: loadSeedPackages(),
      gates: buildGates(config.admission),
      admission: admissionResources(config),
      ...(opened.probe === null ? {} : { probe: opened.probe }),
    });
    const seconds = result.reports.map((report) => report.seconds);
    return {
      secondsPerStep: seconds,
      meanSecondsPerStep: seconds.reduce((sum, value) => sum + value, 0) / Math.max(1, seconds.length),
      phaseSeconds: result.reports.map((report) => report.phaseSeconds ?? null),
      datums: result.reports.map((report) => report.trainer.datums),
    };
  } finally {
    await opened.close();
    await sandbox.close();
    store.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * One training step on a synthetic batch of the quick-start size: every environment of the
 * config's Solver phase played `plays` times per hint condition with rewards 0/1 alternating,
 * `maxTurns` turns of 400 prompt tokens growing by 40 per turn (prefix-consistent) and
 * `solver.maxTokens` action tokens; timed with the zero-latency trainer.
 */
async function benchSyntheticStep(config: Config): Promise<{ seconds: number; datums: number; tokens: number }> {
  const seeds = loadSeedPackages();
  const memory = seeds.map((pkg) => ({ id: packageId(pkg), package: pkg, round: null, scores: null }));
  const episodes: EpisodeRecord[] = [];
  for (const environment of memory.slice(0, config.solver.environments)) {
    for (const hint of [false, true]) {
      for (let play = 0; play < config.plays; play += 1) {
        const turns: Turn[] = [];
        let prompt = Array.from({ length: 400 }, (_, index) => index % 1000);
        for (let turn = 0; turn < config.solver.maxTurns; turn += 1) {
          const action = Array.from({ length: config.solver.maxTokens }, (_, index) => 2000 + index);
          turns.push({ action: "a", observation: "o", reward: turn === config.solver.maxTurns - 1 ? play % 2 : 0, promptTokens: prompt, actionTokens: action, actionLogprobs: action.map(() => -1) });
          prompt = [...prompt, ...action, ...Array.from({ length: 40 }, (_, index) => 3000 + index)];
        }
        const won = play % 2 === 1;
        episodes.push({ round: 1, environmentId: environment.id, role: "solver", hint, policyVersion: 0, episode: { seed: play, initialObservation: "o", turns, return: won ? 1 : 0, won, terminated: true, truncated: false } });
      }
    }
  }
  const store = new SqliteStore(":memory:");
  const trainer = new CheckpointingTrainer(new ZeroLatencyTrainingClient(), { store, metricsPath: join(mkdtempSync(join(tmpdir(), "envforge-bench-step-")), RUN_FILES.metrics), checkpointEvery: 1 });
  const started = performance.now();
  const result = await runTrainingStep({ step: 1, episodes, designs: [], memory, config, trainer, pendingDesigner: {} });
  const seconds = (performance.now() - started) / 1000;
  store.close();
  const tokens = episodes.reduce((sum, record) => sum + (record.episode.turns.at(-1)?.promptTokens?.length ?? 0) + config.solver.maxTokens, 0);
  return { seconds, datums: result.datums, tokens };
}

/**
 * `envforge bench training`: the orchestrator's own seconds per training step
 * (issue 6, Performance). Runs quick-start-size rounds (the config defaults, or
 * `--config`) with a ZERO-LATENCY FAKE policy and trainer, so what remains is
 * envforge's own time: sandboxed episodes, admission, advantages and datums, the
 * store, checkpoint bookkeeping and metrics. With `--real`, the same rounds run
 * against the configured trainer and its policy, and the overhead fraction is
 * the ratio of the two means (target ≤ 5%).
 */
export async function benchTrainingCommand(flags: BenchTrainingFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const config = parseConfig(flags.config === undefined ? {} : readConfigFile(flags.config), flags.config ?? "defaults");
  if (flags.real && config.trainer.backend === "noop") throw new ConfigError('bench training --real needs trainer.backend "reference" or "tinker", not "noop"');
  const orchestrator = await benchRun(config, async (outDir, store) => {
    const policy = new ZeroLatencyPolicy();
    const probe = await policy.generate(PROBE_MESSAGES, { maxTokens: 1, temperature: 0 });
    const trainer = new CheckpointingTrainer(new ZeroLatencyTrainingClient(), { store, metricsPath: join(outDir, RUN_FILES.metrics), checkpointEvery: config.trainer.checkpointEvery });
    return {
      trainer,
      model: policy,
      probe: probeDatum(probe.promptTokens ?? [], Array.from(PROBE_COMPLETION, (character) => character.charCodeAt(0))),
      close: () => trainer.close(),
    };
  });
  const syntheticStep = await benchSyntheticStep(config);
  const real = flags.real
    ? await benchRun(config, async (outDir, store) => {
        const opened = await openTrainer({ ...config, out: outDir }, outDir, store, false);
        if (opened.policy === null) throw new ConfigError('bench training --real needs trainer.backend "reference" or "tinker"');
        return { trainer: opened.trainer, model: opened.policy, probe: opened.probe, close: () => opened.close() };
      })
    : null;
  const report: TrainingBenchReport = {
    config: { rounds: config.rounds, environments: config.solver.environments, plays: config.plays, maxTurns: config.solver.maxTurns, designs: config.designer.designs },
    machine: { cores: availableParallelism(), loadAverage: loadavg().map((value) => Math.round(value * 100) / 100) },
    orchestrator,
    syntheticStep,
    real,
    overheadFraction: real === null || real.meanSecondsPerStep === 0 ? null : orchestrator.meanSecondsPerStep / real.meanSecondsPerStep,
  };
  if (flags.json) {
    write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const describe = (run: TrainingBenchRun) => `${run.secondsPerStep.map((value) => `${value}s`).join(", ")} (mean ${run.meanSecondsPerStep.toFixed(1)}s; datums ${run.datums.join(", ")})`;
  write(`training bench: ${config.rounds} steps of ${config.solver.environments} environments × ${config.plays} plays × 2 hint conditions, ≤ ${config.solver.maxTurns} turns, ${config.designer.designs} designs every ${config.schedule.designerEvery} steps\n`);
  write(`machine: ${report.machine.cores} cores, load average ${report.machine.loadAverage.join(" ")}\n`);
  write(`orchestrator alone (zero-latency fake policy and trainer): seconds per step ${describe(orchestrator)}\n`);
  write(`training step alone on a synthetic quick-start batch: ${syntheticStep.seconds.toFixed(3)} s for ${syntheticStep.datums} datums, ${syntheticStep.tokens} tokens\n`);
  if (real !== null) {
    write(`with ${config.trainer.backend} trainer and its policy: seconds per step ${describe(real)}\n`);
    write(`orchestrator overhead: ${((report.overheadFraction ?? 0) * 100).toFixed(1)}% of a step (target ≤ 5%)\n`);
  }
  return 0;
}
