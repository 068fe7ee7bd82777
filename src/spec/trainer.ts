/**
 * One training sequence in the Tinker API shape: the model input tokens, the
 * targets (input shifted by one), and per-target-token sampling logprobs and
 * advantages. Environment and prompt tokens carry advantage 0 (`mask` 0).
 * All arrays of a datum except `modelInput` have the same length.
 */
export interface Datum {
  /** Token ids fed to the model. */
  readonly modelInput: readonly number[];
  /** `modelInput` shifted left by one: the token each position predicts. */
  readonly targetTokens: readonly number[];
  /** Sampling logprob of each target token (0 where masked). */
  readonly logprobs: readonly number[];
  /** Advantage of each target token (0 where masked). */
  readonly advantages: readonly number[];
  /** 1 for the policy's own tokens, 0 for environment and prompt tokens. */
  readonly mask: readonly number[];
}

/** Loss configuration carried to the trainer (SPADE: asymmetric clip 0.2 / 0.28). */
export interface LossConfig {
  readonly kind: "ppo" | "importance_sampling";
  /** Lower PPO clip threshold ε_low. @default 0.2 */
  readonly clipLow: number;
  /** Upper PPO clip threshold ε_high. @default 0.28 */
  readonly clipHigh: number;
  /**
   * C of an in-pass off-policy correction, only for a backend with
   * {@link Trainer.inPassImportanceCorrection}: π_old is the pass's own learner logprob without
   * its gradient, each policy token's advantage is multiplied by `min(π_old / π_sample, C)` and the
   * ratio is taken against π_old, so the datums' logprobs stay the sampler's. Before an optimiser
   * step this equals a gradient-free `forward` followed by a pass on reweighted datums (decoupled
   * PPO; truncated importance sampling, Yao et al. 2025), in one pass. Absent: no correction.
   */
  readonly importanceCap?: number;
}

/** Adam parameters for one optimiser step. */
export interface AdamParams {
  readonly learningRate: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
}

/**
 * What a forward-backward (or forward) pass reports. `loss` is null when the
 * trainer computed none. `metrics` are the backend's figures (Tinker names, e.g.
 * `loss:sum`, `clip_fraction:mean`); `logprobs` are the learner's logprobs of each
 * datum's target tokens, when the backend returns them.
 */
export interface ForwardBackwardResult {
  readonly datums: number;
  readonly loss: number | null;
  readonly metrics?: Readonly<Record<string, number>>;
  readonly logprobs?: readonly (readonly number[])[];
}

/**
 * A training engine for the shared policy, in the shape of the Tinker API
 * (`forward_backward` then `optim_step`). Implementations: {@link NoopTrainer}
 * (computes nothing; the walking skeleton); the Tinker client and the reference
 * trainer land behind this interface.
 */
export interface Trainer {
  /** Backend name, e.g. `noop`. */
  readonly name: string;
  /** Optimiser steps applied so far (a resumed run starts from its checkpoint's). */
  readonly policyVersion: number;
  /**
   * The backend applies {@link LossConfig.importanceCap} inside `forwardBackward` (the reference
   * trainer announces it in `get_server_capabilities`), so off-policy datums need no separate
   * `forward` first. Absent or false: correct with `forward` then `forwardBackward`.
   */
  readonly inPassImportanceCorrection?: boolean;
  /**
   * Learner logprobs of `datums` without accumulating gradients, where the backend
   * can compute them (absent on `noop`). Used for the delayed Designer update's
   * importance correction and for the logprob probe.
   */
  forward?(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult>;
  /** Accumulates gradients of `loss` over `datums`. */
  forwardBackward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult>;
  /** Applies accumulated gradients; returns the new policy version. */
  optimStep(adam: AdamParams): Promise<{ readonly policyVersion: number }>;
  /** Releases the backend. */
  close(): Promise<void>;
}

/** One sampling request on token ids (Tinker `asample`). */
export interface SampleRequest {
  /** Prompt token ids. */
  readonly promptTokens: readonly number[];
  /** Maximum new tokens. */
  readonly maxTokens: number;
  /** Sampling temperature (0 = greedy). */
  readonly temperature: number;
  readonly seed?: number;
  /** Stop token ids or stop strings. */
  readonly stop?: readonly number[] | readonly string[];
  /** Completions to draw. @default 1 */
  readonly numSamples?: number;
  /** Also return the logprob of every prompt token (the first is null). @default false */
  readonly promptLogprobs?: boolean;
}

/** One sampled completion: token ids and their sampling logprobs (natural log). */
export interface SampledSequence {
  readonly tokens: readonly number[];
  readonly logprobs: readonly number[];
  readonly stopReason: "stop" | "length";
}

/** What a sampling request returns. */
export interface SampleResult {
  readonly sequences: readonly SampledSequence[];
  /** Prompt-token logprobs when requested (index 0 is null), else null. */
  readonly promptLogprobs: readonly (number | null)[] | null;
}

/** Samples from one published set of policy weights (or the base model when `modelPath` is null). */
export interface SamplingClient {
  /** The weights sampled from, e.g. `tinker://model_1/sampler_weights/step-3`; null = base model. */
  readonly modelPath: string | null;
  sample(request: SampleRequest): Promise<SampleResult>;
}

/**
 * A full training client in the shape of the Tinker API: the {@link Trainer} steps
 * plus a gradient-free forward pass, weight publishing to a sampler, and training
 * state (adapter + optimiser) save and load for checkpoints and resume.
 */
export interface TrainingClient extends Trainer {
  /** Learner logprobs (and loss) of `datums` without accumulating gradients. */
  forward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult>;
  /** Publishes the current weights under `name` and returns a client that samples from them. */
  saveWeightsForSampler(name: string): Promise<SamplingClient>;
  /** Saves adapter and optimiser state under `name`; returns the backend path to load it from. */
  saveState(name: string): Promise<string>;
  /** Loads adapter and optimiser state saved by {@link saveState} (possibly by an earlier process). */
  loadState(path: string): Promise<void>;
}
