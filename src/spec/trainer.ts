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
}

/** Adam parameters for one optimiser step. */
export interface AdamParams {
  readonly learningRate: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
}

/** What a forward-backward pass reports. `loss` is null when the trainer computed none. */
export interface ForwardBackwardResult {
  readonly datums: number;
  readonly loss: number | null;
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
  /** Accumulates gradients of `loss` over `datums`. */
  forwardBackward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult>;
  /** Applies accumulated gradients; returns the new policy version. */
  optimStep(adam: AdamParams): Promise<{ readonly policyVersion: number }>;
  /** Releases the backend. */
  close(): Promise<void>;
}
