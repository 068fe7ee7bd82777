import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { EnginePolicy, type SyncCheckResult, type TokenSamplingEngine } from "../adapters/weight-sync/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { parseConfig, readConfigFile } from "../config/index.js";
import { playSolverRollouts, RUN_FILES, solverMessages } from "../core/selfplay/index.js";
import { ConfigError, SandboxUnavailableError, type Datum, type EnvPackage, type Generation, type LanguageModel, type Sandbox, type Trainer, type Turn } from "../spec/index.js";
import { mapWithConcurrency } from "../support/concurrency.js";
import { MeteredModel } from "./metered-model.js";
import { openTrainer } from "./open-trainer.js";
import { onStopSignals } from "./stop-signals.js";
import { openReferenceTokenizerMirror, ReferenceTrainerTokenizer, referenceTrainerStatus, stopReferenceTrainer, TinkerHttp, type ChatTokenizer } from "../adapters/trainer/index.js";
import { ggufPathOf } from "../adapters/llm/index.js";

/** Flags of `envforge bench sampling`. */
export interface BenchSamplingFlags {
  /** Print JSON. */
  readonly json?: boolean;
  /** Solver rollouts per concurrency level. @default 8 */
  readonly episodes?: number;
  /** Turns per episode (cap on the environment's maxTurns). @default `solver.maxTurns` (3) */
  readonly turns?: number;
  /** Most tokens per action. @default `solver.maxTokens` (24) */
  readonly maxTokens?: number;
  /** Episodes in flight, each level measured in the same run, e.g. `1,2,4,8`. @default [1, 2, 4, 8] */
  readonly concurrency?: readonly number[];
  /** Seed environment the rollouts play (`envs/seeds/<name>`). @default "number-guess" */
  readonly env?: string;
  /** A config file over the defaults (the reference trainer on the embedded model, sampler engine). */
  readonly config?: string;
}

/** Speed of Solver rollouts (real episodes in the sandbox) at one concurrency. */
export interface RolloutSpeed {
  /** Episodes in flight at once. */
  readonly concurrency: number;
  readonly episodes: number;
  /** Completion tokens sampled over all turns of all episodes. */
  readonly tokens: number;
  /** Wall seconds of the whole rollout phase (prompting, sampling, decoding, the sandbox's steps). */
  readonly seconds: number;
  readonly tokensPerSecond: number;
  readonly episodesPerSecond: number;
}

/** Engine rollouts at one concurrency, with the engine's own speed on the same prompts. */
export interface EngineRolloutSpeed extends RolloutSpeed {
  /**
   * Tokens/s of the bare engine (`sampleTokens` on the rollouts' own prompt token ids with their own
   * options and seeds, as many in flight), measured right after the rollouts.
   */
  readonly rawTokensPerSecond: number;
  /** tokensPerSecond ÷ rawTokensPerSecond: the share of engine speed the rollouts keep (sandbox, tokenising, orchestration cost the rest). */
  readonly utilisation: number;
}

/** What `envforge bench sampling --json` prints. */
export interface SamplingBenchReport {
  readonly model: string;
  readonly machine: { readonly cores: number; readonly loadAverage: readonly number[] };
  readonly settings: {
    readonly environment: string;
    readonly episodes: number;
    readonly turns: number;
    readonly maxTokens: number;
    readonly temperature: number;
    readonly sequences: number;
    /** `solver.concurrency`: the level the Solver phase runs at, where the headline figures are taken. */
    readonly solverConcurrency: number;
  };
  /** The engine policy (llama.cpp with the trainer's adapter), one entry per concurrency level. */
  readonly engine: readonly EngineRolloutSpeed[];
  /** The trainer's own sampler (transformers in the reference trainer) at `solver.concurrency`. */
  readonly trainer: RolloutSpeed;
  /** Engine rollout tokens/s ÷ trainer rollout tokens/s, both at `solver.concurrency`: the Solver phase's sampling speed-up. */
  readonly solverPhaseSpeedup: number;
  /** Engine rollout tokens/s at N ÷ at N = 1, for every measured N > 1 (keys are N). */
  readonly concurrencySpeedup: Readonly<Record<string, number>>;
  /** Engine utilisation at `solver.concurrency` (else the highest level measured). */
  readonly engineUtilisation: number;
  /**
   * Mean over the engine's sampled tokens (temperature 1) of `log π_engine − log π_trainer` (the trainer's
   * `forward` of the same tokens): a sample estimate of KL(engine ‖ trainer), nats per token.
   */
  readonly engineTrainerKl: number;
  /** Mean |log π_engine − log π_trainer| over the same tokens, nats. */
  readonly engineTrainerMeanAbs: number;
  /** engineTrainerKl after one real optimiser step and the weight sync it triggers. */
  readonly engineTrainerKlAfterStep: number;
  /** Seconds of the weight sync after that step: the trainer's adapter export plus the engine's load. */
  readonly adapterSyncSeconds: number;
  readonly adapterExportSeconds: number;
  readonly adapterLoadSeconds: number;
  /** The sync check made at start (base adapter loaded). */
  readonly syncCheck: SyncCheckResult | null;
  /** What tokenised the prompts and decoded the samples (`OpenedTrainer.tokenizer`). */
  readonly tokenizer: string | null;
  /**
   * Milliseconds per sampled turn of tokenising its chat and decoding its completion, over the N = 1
   * rollouts' turns: through the trainer's routes (two HTTP calls) and with the local mirror of its
   * tokenizer (null when there is none); the policy uses the mirror when there is one.
   */
  readonly tokenizerMsPerTurn: { readonly routes: number; readonly mirror: number | null };
}

/** Observations of the scripted guessing episode, by turn; the actions are the sampler's. */
const OBSERVATIONS = ["Too low. Guess again.", "Too high. Guess again.", "Too low. Guess again.", "Too high. Guess again."];
const INITIAL = "Guess the secret number between 1 and 100. After each guess you are told whether it is too low or too high. Reply with the number only.";
/** Temperature of the benchmarked samples: at 1 the engine's sampling logprobs and the trainer's `forward` are the same distribution. */
const TEMPERATURE = 1;

interface SampledTurn {
  readonly generation: Generation;
  readonly episode: number;
}

/** Plays `episodes` scripted guessing episodes of `turns` turns in the Solver's chat format at temperature 1, keeping every generation. */
async function playScripted(policy: LanguageModel, episodes: number, turns: number, maxTokens: number): Promise<SampledTurn[]> {
  const sampled: SampledTurn[] = [];
  for (let episode = 0; episode < episodes; episode += 1) {
    const history: Turn[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const messages = solverMessages({ initialObservation: INITIAL, observation: history.at(-1)?.observation ?? "", turns: history }, { hint: null });
      const generation = await policy.generate(messages, { maxTokens, temperature: TEMPERATURE, seed: 1000 * episode + turn });
      sampled.push({ generation, episode });
      history.push({ action: generation.text.trim(), observation: OBSERVATIONS[turn % OBSERVATIONS.length] as string, reward: 0 });
    }
  }
  return sampled;
}

interface RolloutSettings {
  readonly episodes: number;
  readonly turns: number;
  readonly maxTokens: number;
  readonly temperature: number;
}

/** Solver rollouts of `pkg` (no hint) at `concurrency`, timed as a whole; with `record`, the generations are kept. */
async function timeRollouts(pkg: EnvPackage, policy: LanguageModel, sandbox: Sandbox, settings: RolloutSettings, concurrency: number, record: boolean): Promise<{ speed: RolloutSpeed; generations: MeteredModel["generations"] }> {
  const metered = new MeteredModel(policy, record);
  const started = performance.now();
  const episodes = await playSolverRollouts(
    pkg,
    metered,
    sandbox,
    { rollouts: settings.episodes, maxTurns: settings.turns, maxTokens: settings.maxTokens, temperature: settings.temperature, concurrency },
    "bench-sampling",
  );
  const seconds = (performance.now() - started) / 1000;
  const failed = episodes.find((episode) => episode.failure !== undefined && episode.failure.kind !== "policy_error");
  if (failed?.failure !== undefined) throw new SandboxUnavailableError(`a bench rollout of ${pkg.manifest.name} failed in the sandbox (${failed.failure.kind}): ${failed.failure.message}`);
  const speed = { concurrency, episodes: episodes.length, tokens: metered.tokens, seconds, tokensPerSecond: metered.tokens / seconds, episodesPerSecond: episodes.length / seconds };
  return { speed, generations: metered.generations };
}

/**
 * Tokens/s of the bare engine sampling the rollouts' generations again: the same prompt token ids
 * with the same options (seed included, so mostly the same tokens), in completion order,
 * `concurrency` at a time. The engine's sequences still hold the rollouts' last prompts, and
 * all samples start together, so this is a rough bound, not a tight one.
 */
async function timeEngine(engine: TokenSamplingEngine, generations: MeteredModel["generations"], concurrency: number): Promise<number> {
  const started = performance.now();
  const samples = await mapWithConcurrency(generations, concurrency, ({ generation, options }) => engine.sampleTokens(generation.promptTokens ?? [], options));
  const tokens = samples.reduce((sum, sample) => sum + sample.tokens.length, 0);
  return tokens / ((performance.now() - started) / 1000);
}

/**
 * Milliseconds per turn of `encodeChat` of each generation's messages plus `decode` of its
 * tokens, one turn after another (as a Solver episode makes them), on `tokenizer`.
 */
async function timeTokenizer(tokenizer: ChatTokenizer, generations: MeteredModel["generations"]): Promise<number> {
  const started = performance.now();
  for (const { generation, messages } of generations) {
    await tokenizer.encodeChat(messages);
    await tokenizer.decode(generation.tokens ?? []);
  }
  return (performance.now() - started) / Math.max(1, generations.length);
}

/** The trainer's tokenizer routes and its local mirror (null when none) for the bench's reference trainer in `outDir`. */
async function benchTokenizers(outDir: string, gguf: string | null): Promise<{ routes: ChatTokenizer; mirror: ChatTokenizer | null }> {
  const { state } = await referenceTrainerStatus(outDir);
  if (state === null) throw new ConfigError(`bench sampling: the reference trainer of ${outDir} left no state file`);
  const routes = new ReferenceTrainerTokenizer(new TinkerHttp({ baseUrl: state.url }));
  const mirror = gguf === null ? null : await openReferenceTokenizerMirror(gguf, routes);
  return { routes, mirror: mirror?.kind === "mirror" ? mirror.tokenizer : null };
}

/** A datum of one sampled turn (completion tokens masked in, weighted by `advantage`). */
function turnDatum(generation: Generation, advantage: number): Datum {
  const prompt = generation.promptTokens ?? [];
  const completion = generation.tokens ?? [];
  const logprobs = generation.logprobs ?? [];
  const sequence = [...prompt, ...completion];
  const targets = sequence.slice(1);
  const inCompletion = (index: number) => index + 1 >= prompt.length;
  return {
    modelInput: sequence.slice(0, -1),
    targetTokens: targets,
    logprobs: targets.map((_, index) => (inCompletion(index) ? (logprobs[index + 1 - prompt.length] as number) : 0)),
    advantages: targets.map((_, index) => (inCompletion(index) ? advantage : 0)),
    mask: targets.map((_, index) => (inCompletion(index) ? 1 : 0)),
  };
}

const LOSS = { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 } as const;

/** KL(engine ‖ trainer) estimate and mean absolute difference over the sampled tokens of `turns`. */
async function engineTrainerGap(trainer: Trainer, turns: readonly SampledTurn[]): Promise<{ kl: number; meanAbs: number }> {
  const kept = turns.filter((entry) => (entry.generation.tokens?.length ?? 0) > 0);
  const datums = kept.map((entry) => turnDatum(entry.generation, 0));
  if (trainer.forward === undefined) throw new ConfigError("bench sampling needs a trainer with forward logprobs");
  const learner = (await trainer.forward(datums, LOSS)).logprobs ?? [];
  let sum = 0;
  let abs = 0;
  let count = 0;
  datums.forEach((datum, row) => {
    datum.mask.forEach((flag, index) => {
      if (flag !== 1) return;
      const difference = (datum.logprobs[index] as number) - (learner[row]?.[index] ?? Number.NaN);
      sum += difference;
      abs += Math.abs(difference);
      count += 1;
    });
  });
  return { kl: sum / count, meanAbs: abs / count };
}

/**
 * `envforge bench sampling`: Solver rollouts (real episodes of a seed environment in the sandbox,
 * the Solver's prompts, quick-start turn and token bounds and temperature) on the embedded
 * llama.cpp engine policy (with the trainer's adapter) at every concurrency level, each followed by
 * the bare engine on the same prompts at the same concurrency (utilisation); the same rollouts on
 * the reference trainer's own sampler at `solver.concurrency` (the Solver phase's speed-up); the
 * engine–trainer mismatch on temperature-1 samples before and after one real optimiser step; and
 * the seconds of the weight sync that step triggers (adapter export + load). Every figure comes
 * from the same run. The engine context gets as many sequences as the highest level.
 *
 * @throws ConfigError when the config does not give the engine sampler (`trainer.backend`
 *   "reference", `trainer.sampler` "engine", a GGUF model), for an unknown `--env`, or what
 *   {@link openTrainer} throws
 * @throws SandboxUnavailableError when a rollout fails in the sandbox
 */
export async function benchSamplingCommand(flags: BenchSamplingFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const levels = [...new Set(flags.concurrency ?? [1, 2, 4, 8])].sort((a, b) => a - b);
  if (levels.length === 0 || levels.some((level) => !Number.isInteger(level) || level < 1 || level > 64)) {
    throw new ConfigError(`bench sampling --concurrency takes integers from 1 to 64, got ${JSON.stringify(flags.concurrency)}`);
  }
  const file = flags.config === undefined ? {} : (readConfigFile(flags.config) as { trainer?: Record<string, unknown>; model?: Record<string, unknown> });
  const top = levels.at(-1) as number;
  const config = parseConfig(
    { ...file, trainer: { backend: "reference", sampler: "engine", ...file.trainer }, model: { sequences: top, ...file.model } },
    flags.config ?? "defaults",
  );
  if (config.trainer.backend !== "reference" || config.trainer.sampler !== "engine") {
    throw new ConfigError(`bench sampling compares the engine sampler with the trainer's: it needs trainer.backend "reference" and trainer.sampler "engine", not "${config.trainer.backend}" and "${config.trainer.sampler}"`);
  }
  const environment = flags.env ?? "number-guess";
  const pkg = loadSeedPackages().find((candidate) => candidate.manifest.name === environment);
  if (pkg === undefined) throw new ConfigError(`bench sampling --env: no seed environment ${JSON.stringify(environment)} in envs/seeds (${loadSeedPackages().map((seed) => seed.manifest.name).join(", ")})`);
  const settings: RolloutSettings = {
    episodes: flags.episodes ?? 8,
    turns: flags.turns ?? config.solver.maxTurns,
    maxTokens: flags.maxTokens ?? config.solver.maxTokens,
    temperature: config.solver.temperature,
  };
  const outDir = mkdtempSync(join(tmpdir(), "envforge-bench-sampling-"));
  const store = new SqliteStore(join(outDir, RUN_FILES.store));
  const sandbox = openSandbox(config.sandbox);
  const progress = (text: string) => process.stderr.write(`bench sampling: ${text}\n`);
  // a stop signal stops the reference trainer (it runs detached) and removes the bench's folder before exiting
  const removeStopHandlers = onStopSignals(async () => {
    await stopReferenceTrainer(outDir);
    rmSync(outDir, { recursive: true, force: true });
  });
  try {
    const opened = await openTrainer({ ...config, out: outDir }, outDir, store, false);
    try {
      const policy = opened.policy;
      if (!(policy instanceof EnginePolicy) || opened.trainerPolicy === null) {
        throw new ConfigError('bench sampling compares the engine sampler with the trainer\'s: it needs trainer.backend "reference", trainer.sampler "engine" and a GGUF model');
      }
      // warm-up: the first episodes pay for cold caches and the sandbox's first start
      await timeRollouts(pkg, policy, sandbox, { ...settings, episodes: 2 }, 2, false);
      const engine: EngineRolloutSpeed[] = [];
      let engineTurnsAtOne: MeteredModel["generations"] = [];
      for (const level of levels) {
        const rollouts = await timeRollouts(pkg, policy, sandbox, settings, level, true);
        if (level === levels[0]) engineTurnsAtOne = rollouts.generations;
        const raw = await timeEngine(policy.samplingEngine, rollouts.generations, level);
        engine.push({ ...rollouts.speed, rawTokensPerSecond: raw, utilisation: rollouts.speed.tokensPerSecond / raw });
        progress(`engine at concurrency ${level}: ${rollouts.speed.tokensPerSecond.toFixed(1)} tokens/s in rollouts, ${raw.toFixed(1)} bare`);
      }
      const tokenizers = await benchTokenizers(outDir, ggufPathOf(config.trainer.model ?? config.model.spec));
      const turnsAtOne = engineTurnsAtOne;
      const tokenizerMsPerTurn = {
        routes: await timeTokenizer(tokenizers.routes, turnsAtOne),
        mirror: tokenizers.mirror === null ? null : await timeTokenizer(tokenizers.mirror, turnsAtOne),
      };
      progress(`tokenising a turn: ${tokenizerMsPerTurn.routes.toFixed(1)} ms through the trainer's routes, ${tokenizerMsPerTurn.mirror === null ? "no local mirror" : `${tokenizerMsPerTurn.mirror.toFixed(1)} ms with the local mirror`}`);
      const solverConcurrency = config.solver.concurrency;
      const trainer = (await timeRollouts(pkg, opened.trainerPolicy, sandbox, settings, solverConcurrency, false)).speed;
      progress(`trainer's sampler at concurrency ${solverConcurrency}: ${trainer.tokensPerSecond.toFixed(1)} tokens/s`);
      const atSolver = engine.find((entry) => entry.concurrency === solverConcurrency) ?? (engine.at(-1) as EngineRolloutSpeed);
      const first = engine[0] as EngineRolloutSpeed;

      const sampled = await playScripted(policy, 3, 3, 32);
      const before = await engineTrainerGap(opened.trainer, sampled);
      // one real optimiser step on the engine's samples (episodes alternately rewarded), then the sync it triggers
      const datums = sampled.filter((entry) => (entry.generation.tokens?.length ?? 0) > 0).map((entry) => turnDatum(entry.generation, entry.episode % 2 === 0 ? 1 : -1));
      await opened.trainer.forwardBackward(datums, LOSS);
      await opened.trainer.optimStep({ learningRate: config.trainer.learningRate, beta1: config.trainer.beta1, beta2: config.trainer.beta2, epsilon: config.trainer.epsilon });
      const after = await playScripted(policy, 1, 3, 32);
      const sync = policy.lastSyncResult;
      if (sync === null || sync.policyVersion !== opened.trainer.policyVersion) throw new ConfigError("the engine policy did not sync after the optimiser step");
      const afterGap = await engineTrainerGap(opened.trainer, after);

      const report: SamplingBenchReport = {
        model: policy.id,
        machine: { cores: availableParallelism(), loadAverage: loadavg().map((value) => Math.round(value * 100) / 100) },
        settings: { environment, ...settings, sequences: config.model.sequences, solverConcurrency },
        engine,
        trainer,
        solverPhaseSpeedup: atSolver.tokensPerSecond / trainer.tokensPerSecond,
        concurrencySpeedup: Object.fromEntries(engine.filter((entry) => entry.concurrency > 1).map((entry) => [String(entry.concurrency), entry.tokensPerSecond / first.tokensPerSecond])),
        engineUtilisation: atSolver.utilisation,
        engineTrainerKl: before.kl,
        engineTrainerMeanAbs: before.meanAbs,
        engineTrainerKlAfterStep: afterGap.kl,
        adapterSyncSeconds: (sync.exportMs + sync.loadMs) / 1000,
        adapterExportSeconds: sync.exportMs / 1000,
        adapterLoadSeconds: sync.loadMs / 1000,
        syncCheck: opened.syncCheck,
        tokenizer: opened.tokenizer,
        tokenizerMsPerTurn,
      };
      write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      return 0;
    } finally {
      await opened.close();
    }
  } finally {
    await sandbox.close();
    removeStopHandlers();
    store.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

function formatReport(report: SamplingBenchReport): string {
  const { settings } = report;
  const rows = report.engine
    .map((entry) => `  N=${entry.concurrency}: ${entry.tokens} tokens in ${entry.seconds.toFixed(1)} s = ${entry.tokensPerSecond.toFixed(1)} tokens/s, ${entry.episodesPerSecond.toFixed(3)} episodes/s; bare engine ${entry.rawTokensPerSecond.toFixed(1)} tokens/s, utilisation ${entry.utilisation.toFixed(2)}\n`)
    .join("");
  const speedups = Object.entries(report.concurrencySpeedup).map(([level, value]) => `N=${level} ${value.toFixed(2)}x`).join(", ");
  return (
    `sampling bench (${report.model}): ${settings.episodes} Solver rollouts of ${settings.environment} per level, ≤ ${settings.turns} turns, ≤ ${settings.maxTokens} tokens per action, temperature ${settings.temperature}\n` +
    `machine: ${report.machine.cores} cores, load average ${report.machine.loadAverage.join(" ")}\n` +
    `tokenizer: ${report.tokenizer ?? "none"}; a turn's chat and completion take ${report.tokenizerMsPerTurn.routes.toFixed(1)} ms through the trainer's routes` +
    `${report.tokenizerMsPerTurn.mirror === null ? "" : `, ${report.tokenizerMsPerTurn.mirror.toFixed(1)} ms with the local mirror`}\n` +
    `engine (llama.cpp + adapter, ${settings.sequences} sequences):\n${rows}` +
    `trainer's sampler at N=${report.trainer.concurrency}: ${report.trainer.tokens} tokens in ${report.trainer.seconds.toFixed(1)} s = ${report.trainer.tokensPerSecond.toFixed(1)} tokens/s\n` +
    `Solver phase speed-up at N=${settings.solverConcurrency}: ${report.solverPhaseSpeedup.toFixed(2)}x tokens/s; concurrency speed-up: ${speedups || "none measured"}; engine utilisation ${report.engineUtilisation.toFixed(2)}\n` +
    `engine–trainer KL estimate (temperature 1): ${report.engineTrainerKl.toFixed(4)} nats/token (mean |difference| ${report.engineTrainerMeanAbs.toFixed(4)}); after one step and its sync ${report.engineTrainerKlAfterStep.toFixed(4)}\n` +
    `adapter sync: ${report.adapterSyncSeconds.toFixed(3)} s (export ${report.adapterExportSeconds.toFixed(3)} s, load ${report.adapterLoadSeconds.toFixed(3)} s)\n` +
    (report.syncCheck === null ? "" : `sync check at start: ${report.syncCheck.meanAbsDifference.toFixed(3)} nats/token mean over ${report.syncCheck.positions} probe positions (tolerance ${report.syncCheck.tolerance})\n`)
  );
}
