import { appendFileSync } from "node:fs";
import { dirname } from "node:path";
import type { AdamParams, Datum, ForwardBackwardResult, LossConfig, SamplingClient, Store, Trainer, TrainingClient } from "../../spec/index.js";
import { makeDirectory } from "../../support/make-directory.js";

/** Store metadata key of the last training checkpoint. */
export const TRAINER_CHECKPOINT_META = "trainerCheckpoint";

/** The last saved training state of a run (stored in the run's store). */
export interface TrainerCheckpoint {
  /** Policy version (optimiser steps) at the checkpoint. */
  readonly policyVersion: number;
  /** Backend path of adapter + optimiser state, for `loadState`. */
  readonly statePath: string;
  /** Backend path of the sampler weights published at that step. */
  readonly samplerPath: string;
  readonly savedAt: string;
}

/** One `metrics.jsonl` line per training step (`kind: "trainer_step"`). */
export interface TrainerStepMetrics {
  readonly kind: "trainer_step";
  readonly policyVersion: number;
  /** When the step's line was written, ISO-8601 (the wall time of `envforge export tensorboard`). */
  readonly time: string;
  readonly datums: number;
  /** Summed loss as the backend reports it (`loss:sum`); null when no datum was sent. */
  readonly loss: number | null;
  readonly clipFraction: number | null;
  /**
   * Mean of log π_datum − log π_learner over policy tokens, weighted by each call's policy tokens: a
   * KL estimate between the datums' logprobs and the learner. With the in-pass correction the
   * datums keep the sampler's logprobs, so off-policy drift shows here; with a `forward` first the
   * corrected datums carry π_old and contribute about 0 (their drift is in the round report's
   * `samplerMismatch` and the Designer's importance weights).
   */
  readonly klSamplerLearner: number | null;
  /** Model-input tokens sent to `forward_backward`. */
  readonly tokens: number;
  /** tokens / seconds of forward_backward + optim_step. */
  readonly tokensPerSecond: number;
  /** Seconds per phase. */
  readonly seconds: { readonly forwardBackward: number; readonly optimStep: number; readonly publish: number; readonly checkpoint: number };
  /** Backend path of the state saved at this step, or null when none was due. */
  readonly checkpoint: string | null;
}

/** Options of {@link CheckpointingTrainer}. */
export interface CheckpointingTrainerOptions {
  readonly store: Store;
  /** `metrics.jsonl` of the run. */
  readonly metricsPath: string;
  /** Save state every N optimiser steps. */
  readonly checkpointEvery: number;
  /** Called with the sampler of every newly published policy version. */
  readonly onPublish?: (sampler: SamplingClient, policyVersion: number) => void;
  /** Backend name shown in reports and the summary, e.g. `reference`. @default the client's name */
  readonly name?: string;
  /** @default performance.now */
  readonly clock?: () => number;
}

/**
 * A {@link Trainer} over a {@link TrainingClient} that, after every optimiser step,
 * publishes the new weights to the sampler, saves adapter and optimiser state every
 * `checkpointEvery` steps (recorded under {@link TRAINER_CHECKPOINT_META} in the store,
 * so a run killed at any moment resumes from its last checkpoint), and appends a
 * {@link TrainerStepMetrics} line to `metrics.jsonl`.
 */
export class CheckpointingTrainer implements Trainer {
  readonly name: string;
  private pending: { result: ForwardBackwardResult; tokens: number; policyTokens: number; seconds: number }[] = [];
  private readonly clock: () => number;

  constructor(
    private readonly inner: TrainingClient,
    private readonly options: CheckpointingTrainerOptions,
  ) {
    this.name = options.name ?? inner.name;
    this.clock = options.clock ?? (() => performance.now());
    makeDirectory(dirname(options.metricsPath));
  }

  /** The inner client's policy version (optimiser steps applied, counted from a restored checkpoint's). */
  get policyVersion(): number {
    return this.inner.policyVersion;
  }

  /** Whether the inner client corrects off-policy datums inside `forwardBackward` (`LossConfig.importanceCap`). */
  get inPassImportanceCorrection(): boolean {
    return this.inner.inPassImportanceCorrection ?? false;
  }

  /** The inner client's gradient-free forward pass. */
  forward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult> {
    return this.inner.forward(datums, loss);
  }

  async forwardBackward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult> {
    const started = this.clock();
    const result = await this.inner.forwardBackward(datums, loss);
    const tokens = datums.reduce((sum, datum) => sum + datum.modelInput.length, 0);
    const policyTokens = datums.reduce((sum, datum) => sum + datum.mask.reduce((count, flag) => count + (flag === 1 ? 1 : 0), 0), 0);
    this.pending.push({ result, tokens, policyTokens, seconds: (this.clock() - started) / 1000 });
    return result;
  }

  async optimStep(adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    let started = this.clock();
    const { policyVersion } = await this.inner.optimStep(adam);
    const optimSeconds = (this.clock() - started) / 1000;
    started = this.clock();
    const name = `step-${policyVersion}`;
    const sampler = await this.inner.saveWeightsForSampler(name);
    this.options.onPublish?.(sampler, policyVersion);
    const publishSeconds = (this.clock() - started) / 1000;
    started = this.clock();
    let checkpoint: string | null = null;
    if (policyVersion % this.options.checkpointEvery === 0) {
      checkpoint = await this.inner.saveState(name);
      const record: TrainerCheckpoint = { policyVersion, statePath: checkpoint, samplerPath: sampler.modelPath ?? "", savedAt: new Date().toISOString() };
      this.options.store.setMeta(TRAINER_CHECKPOINT_META, record);
    }
    const checkpointSeconds = (this.clock() - started) / 1000;
    appendFileSync(this.options.metricsPath, `${JSON.stringify(this.metricsLine(policyVersion, optimSeconds, publishSeconds, checkpointSeconds, checkpoint))}\n`);
    this.pending = [];
    return { policyVersion };
  }

  private metricsLine(policyVersion: number, optimStep: number, publish: number, checkpointSeconds: number, checkpoint: string | null): TrainerStepMetrics {
    const sent = this.pending.filter((entry) => entry.result.datums > 0);
    // a backend's ":mean" metrics are means over the policy tokens of one call; a step of several
    // calls (on-policy and off-policy datums apart) weighs each call by its policy tokens
    const metric = (key: string): number | null => {
      const values = sent
        .map((entry) => ({ value: entry.result.metrics?.[key], weight: entry.policyTokens }))
        .filter((entry): entry is { value: number; weight: number } => typeof entry.value === "number");
      if (values.length === 0) return null;
      const weight = values.reduce((sum, entry) => sum + entry.weight, 0);
      return weight === 0 ? values.reduce((sum, entry) => sum + entry.value, 0) / values.length : values.reduce((sum, entry) => sum + entry.value * entry.weight, 0) / weight;
    };
    const tokens = this.pending.reduce((sum, entry) => sum + entry.tokens, 0);
    const forwardBackward = this.pending.reduce((sum, entry) => sum + entry.seconds, 0);
    const losses = sent.map((entry) => entry.result.loss).filter((value): value is number => value !== null);
    return {
      kind: "trainer_step",
      policyVersion,
      time: new Date().toISOString(),
      datums: this.pending.reduce((sum, entry) => sum + entry.result.datums, 0),
      loss: losses.length === 0 ? null : losses.reduce((sum, value) => sum + value, 0),
      clipFraction: metric("clip_fraction:mean"),
      klSamplerLearner: metric("kl_sampler_learner:mean"),
      tokens,
      tokensPerSecond: forwardBackward + optimStep > 0 ? tokens / (forwardBackward + optimStep) : 0,
      seconds: { forwardBackward, optimStep, publish, checkpoint: checkpointSeconds },
      checkpoint,
    };
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}

/**
 * Restores the last checkpoint recorded in `store` into `trainer` (adapter and
 * optimiser state); returns it, or null for a run without one.
 * @throws TrainerRequestError when the backend cannot load the saved state
 */
export async function restoreTrainerCheckpoint(trainer: Pick<TrainingClient, "loadState">, store: Store): Promise<TrainerCheckpoint | null> {
  const record = store.getMeta(TRAINER_CHECKPOINT_META) as TrainerCheckpoint | undefined;
  if (record === undefined || typeof record.statePath !== "string") return null;
  await trainer.loadState(record.statePath);
  return record;
}
