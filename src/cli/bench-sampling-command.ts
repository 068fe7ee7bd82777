import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { EnginePolicy, type SyncCheckResult } from "../adapters/weight-sync/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { parseConfig, readConfigFile } from "../config/index.js";
import { RUN_FILES, solverMessages } from "../core/selfplay/index.js";
import { ConfigError, type Datum, type Generation, type LanguageModel, type Trainer, type Turn } from "../spec/index.js";
import { openTrainer } from "./open-trainer.js";

/** Flags of `envforge bench sampling`. */
export interface BenchSamplingFlags {
  /** Print JSON. */
  readonly json?: boolean;
  /** Solver-like episodes per sampler. @default 3 */
  readonly episodes?: number;
  /** Turns per episode. @default 3 */
  readonly turns?: number;
  /** Most tokens per action. @default 32 */
  readonly maxTokens?: number;
  /** A config file over the defaults (the reference trainer on the embedded model, sampler engine). */
  readonly config?: string;
}

/** Speed of one sampler over the same episodes. */
export interface SamplerSpeed {
  /** Tokens sampled, all turns of all episodes. */
  readonly tokens: number;
  /** Wall seconds of all generations (tokenising, sampling, any weight sync, decoding). */
  readonly seconds: number;
  readonly tokensPerSecond: number;
  readonly episodesPerSecond: number;
}

/** What `envforge bench sampling --json` prints. */
export interface SamplingBenchReport {
  readonly model: string;
  readonly machine: { readonly cores: number; readonly loadAverage: readonly number[] };
  readonly settings: { readonly episodes: number; readonly turns: number; readonly maxTokens: number; readonly temperature: number };
  /** The engine policy: llama.cpp with the trainer's adapter. */
  readonly engine: SamplerSpeed;
  /** The trainer's own sampler (transformers in the reference trainer). */
  readonly trainer: SamplerSpeed;
  /** engine tokens/s ÷ trainer tokens/s over the same Solver-like episodes. */
  readonly solverPhaseSpeedup: number;
  /** engine episodes/s ÷ trainer episodes/s (noisier: episodes that stop early are shorter). */
  readonly episodesPerSecondSpeedup: number;
  /**
   * Mean over the engine's sampled tokens of `log π_engine − log π_trainer` (the trainer's `forward` of the
   * same tokens, base weights): a sample estimate of KL(engine ‖ trainer), nats per token.
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
  /** Episodes in flight at once: one (generations on one engine are serialised); concurrent figures are not measured. */
  readonly concurrency: { readonly episodesInFlight: 1; readonly concurrentEpisodesPerSecond: null };
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

/** Plays `episodes` Solver-like episodes of `turns` turns (the Solver's own chat format), timing every generation. */
async function playEpisodes(policy: LanguageModel, episodes: number, turns: number, maxTokens: number): Promise<{ speed: SamplerSpeed; sampled: SampledTurn[] }> {
  const sampled: SampledTurn[] = [];
  let seconds = 0;
  for (let episode = 0; episode < episodes; episode += 1) {
    const history: Turn[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const messages = solverMessages({ initialObservation: INITIAL, observation: history.at(-1)?.observation ?? "", turns: history }, { hint: null });
      const started = performance.now();
      const generation = await policy.generate(messages, { maxTokens, temperature: TEMPERATURE, seed: 1000 * episode + turn });
      seconds += (performance.now() - started) / 1000;
      sampled.push({ generation, episode });
      history.push({ action: generation.text.trim(), observation: OBSERVATIONS[turn % OBSERVATIONS.length] as string, reward: 0 });
    }
  }
  const tokens = sampled.reduce((sum, entry) => sum + (entry.generation.tokens?.length ?? 0), 0);
  return { speed: { tokens, seconds, tokensPerSecond: tokens / seconds, episodesPerSecond: episodes / seconds }, sampled };
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
 * `envforge bench sampling`: the Solver phase's sampling on the embedded llama.cpp engine (the
 * {@link EnginePolicy}, with the trainer's adapter) against the reference trainer's own sampler,
 * over the same Solver-like episodes (a scripted guessing game in the Solver's chat format,
 * temperature 1, one episode at a time); the engine–trainer mismatch on the engine's samples
 * before and after one real optimiser step; and the seconds of the weight sync that step
 * triggers (adapter export + load).
 *
 * @throws ConfigError when the config does not give the engine sampler (`trainer.backend`
 *   "reference", `trainer.sampler` "engine", a GGUF model), or what {@link openTrainer} throws
 */
export async function benchSamplingCommand(flags: BenchSamplingFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const file = flags.config === undefined ? {} : (readConfigFile(flags.config) as { trainer?: Record<string, unknown> });
  const config = parseConfig({ ...file, trainer: { backend: "reference", sampler: "engine", ...file.trainer } }, flags.config ?? "defaults");
  if (config.trainer.backend !== "reference" || config.trainer.sampler !== "engine") {
    throw new ConfigError(`bench sampling compares the engine sampler with the trainer's: it needs trainer.backend "reference" and trainer.sampler "engine", not "${config.trainer.backend}" and "${config.trainer.sampler}"`);
  }
  const episodes = flags.episodes ?? 3;
  const turns = flags.turns ?? 3;
  const maxTokens = flags.maxTokens ?? 32;
  const outDir = mkdtempSync(join(tmpdir(), "envforge-bench-sampling-"));
  const store = new SqliteStore(join(outDir, RUN_FILES.store));
  try {
    const opened = await openTrainer({ ...config, out: outDir }, outDir, store, false);
    try {
      const policy = opened.policy;
      if (!(policy instanceof EnginePolicy) || opened.trainerPolicy === null) {
        throw new ConfigError('bench sampling compares the engine sampler with the trainer\'s: it needs trainer.backend "reference", trainer.sampler "engine" and a GGUF model');
      }
      const engine = await playEpisodes(policy, episodes, turns, maxTokens);
      const trainerSpeed = (await playEpisodes(opened.trainerPolicy, episodes, turns, maxTokens)).speed;
      const before = await engineTrainerGap(opened.trainer, engine.sampled);

      // one real optimiser step on the engine's samples (episodes alternately rewarded), then the sync it triggers
      const datums = engine.sampled.filter((entry) => (entry.generation.tokens?.length ?? 0) > 0).map((entry) => turnDatum(entry.generation, entry.episode % 2 === 0 ? 1 : -1));
      await opened.trainer.forwardBackward(datums, LOSS);
      await opened.trainer.optimStep({ learningRate: config.trainer.learningRate, beta1: config.trainer.beta1, beta2: config.trainer.beta2, epsilon: config.trainer.epsilon });
      const after = await playEpisodes(policy, 1, turns, maxTokens);
      const sync = policy.lastSyncResult;
      if (sync === null || sync.policyVersion !== opened.trainer.policyVersion) throw new ConfigError("the engine policy did not sync after the optimiser step");
      const afterGap = await engineTrainerGap(opened.trainer, after.sampled);

      const report: SamplingBenchReport = {
        model: policy.id,
        machine: { cores: availableParallelism(), loadAverage: loadavg().map((value) => Math.round(value * 100) / 100) },
        settings: { episodes, turns, maxTokens, temperature: TEMPERATURE },
        engine: engine.speed,
        trainer: trainerSpeed,
        solverPhaseSpeedup: engine.speed.tokensPerSecond / trainerSpeed.tokensPerSecond,
        episodesPerSecondSpeedup: engine.speed.episodesPerSecond / trainerSpeed.episodesPerSecond,
        engineTrainerKl: before.kl,
        engineTrainerMeanAbs: before.meanAbs,
        engineTrainerKlAfterStep: afterGap.kl,
        adapterSyncSeconds: (sync.exportMs + sync.loadMs) / 1000,
        adapterExportSeconds: sync.exportMs / 1000,
        adapterLoadSeconds: sync.loadMs / 1000,
        syncCheck: opened.syncCheck,
        concurrency: { episodesInFlight: 1, concurrentEpisodesPerSecond: null },
      };
      write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      return 0;
    } finally {
      await opened.close();
    }
  } finally {
    store.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

function formatReport(report: SamplingBenchReport): string {
  const speed = (name: string, value: SamplerSpeed) =>
    `${name}: ${value.tokens} tokens in ${value.seconds.toFixed(1)} s = ${value.tokensPerSecond.toFixed(1)} tokens/s, ${value.episodesPerSecond.toFixed(3)} episodes/s\n`;
  const { settings } = report;
  return (
    `sampling bench (${report.model}): ${settings.episodes} Solver-like episodes × ${settings.turns} turns, ≤ ${settings.maxTokens} tokens per action, temperature ${settings.temperature}\n` +
    `machine: ${report.machine.cores} cores, load average ${report.machine.loadAverage.join(" ")}\n` +
    speed("engine (llama.cpp + adapter)", report.engine) +
    speed("trainer's sampler", report.trainer) +
    `Solver phase speed-up: ${report.solverPhaseSpeedup.toFixed(2)}x tokens/s (${report.episodesPerSecondSpeedup.toFixed(2)}x episodes/s)\n` +
    `engine–trainer KL estimate: ${report.engineTrainerKl.toFixed(4)} nats/token (mean |difference| ${report.engineTrainerMeanAbs.toFixed(4)}); after one step and its sync ${report.engineTrainerKlAfterStep.toFixed(4)}\n` +
    `adapter sync: ${report.adapterSyncSeconds.toFixed(3)} s (export ${report.adapterExportSeconds.toFixed(3)} s, load ${report.adapterLoadSeconds.toFixed(3)} s)\n` +
    (report.syncCheck === null ? "" : `sync check at start: ${report.syncCheck.meanAbsDifference.toFixed(3)} nats/token mean over ${report.syncCheck.positions} probe positions (tolerance ${report.syncCheck.tolerance})\n`)
  );
}
