import type { Datum, LossConfig } from "../../spec/index.js";
import { TrainingDataError } from "./training-data-error.js";

/** Cap C of the truncated importance weight (SPADE). */
export const DEFAULT_IMPORTANCE_CAP = 2;

/** Default {@link LossConfig}: PPO with asymmetric clip thresholds 0.2 / 0.28 (SPADE). */
export const DEFAULT_LOSS_CONFIG: LossConfig = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 };

/**
 * The trainer's loss configuration from the `advantages` config block.
 * @param settings `config.advantages` (or any object with these keys)
 */
export function lossConfig(settings: { readonly lossKind: LossConfig["kind"]; readonly clipLow: number; readonly clipHigh: number }): LossConfig {
  return { kind: settings.lossKind, clipLow: settings.clipLow, clipHigh: settings.clipHigh };
}

/**
 * Truncated importance weights (SPADE, delayed Designer update): per token,
 * `w = min(π_old / π_sample, C) = min(exp(logπ_old − logπ_sample), C)`.
 *
 * @param oldLogprobs logprobs of the tokens under the policy being updated (π_old), natural log
 * @param samplingLogprobs logprobs under the policy that sampled them (π_sample), natural log
 * @param cap C > 0. @default 2
 * @returns one weight in [0, C] per token
 * @throws TrainingDataError when the lengths differ, a logprob is not finite, or C ≤ 0
 */
export function truncatedImportanceWeights(
  oldLogprobs: readonly number[],
  samplingLogprobs: readonly number[],
  cap: number = DEFAULT_IMPORTANCE_CAP,
): number[] {
  if (!(cap > 0)) throw new TrainingDataError(`importance cap must be positive, got ${cap}`);
  if (oldLogprobs.length !== samplingLogprobs.length) {
    throw new TrainingDataError(`${oldLogprobs.length} old logprobs but ${samplingLogprobs.length} sampling logprobs`);
  }
  return oldLogprobs.map((old, index) => {
    const sampled = samplingLogprobs[index] as number;
    if (!Number.isFinite(old) || !Number.isFinite(sampled)) throw new TrainingDataError(`non-finite logprob at token ${index}`);
    return Math.min(Math.exp(old - sampled), cap);
  });
}

/** A datum with truncated importance weights folded into its advantages. */
export interface ImportanceCorrection {
  /** The datum with `advantages[i] · weights[i]` where masked in (masked-out advantages stay 0). */
  readonly datum: Datum;
  /** Per target token: the truncated weight where `mask` is 1, else 1. */
  readonly weights: readonly number[];
  /** Per target token: whether the raw ratio exceeded C (always false where `mask` is 0). */
  readonly truncated: readonly boolean[];
}

/**
 * Off-policy correction of a datum sampled k policy versions ago (SPADE,
 * delayed Designer update): folds `min(π_old/π_sample, C)` into each policy
 * token's advantage; `datum.logprobs` are the sampling logprobs. Environment and
 * prompt tokens are untouched (weight 1, advantage 0).
 *
 * @param datum a datum from `buildDatum`
 * @param oldLogprobs per target token, logprob under π_old; entries where `mask` is 0 are ignored
 * @param cap C. @default 2
 * @throws TrainingDataError when `oldLogprobs` and the datum's targets differ in length, or as {@link truncatedImportanceWeights}
 */
export function applyImportanceCorrection(
  datum: Datum,
  oldLogprobs: readonly number[],
  cap: number = DEFAULT_IMPORTANCE_CAP,
): ImportanceCorrection {
  if (oldLogprobs.length !== datum.targetTokens.length) {
    throw new TrainingDataError(`${oldLogprobs.length} old logprobs for ${datum.targetTokens.length} target tokens`);
  }
  const raw = truncatedImportanceWeights(
    oldLogprobs.map((old, index) => (datum.mask[index] === 1 ? old : 0)),
    datum.mask.map((flag, index) => (flag === 1 ? (datum.logprobs[index] as number) : 0)),
    cap,
  );
  const weights = raw.map((weight, index) => (datum.mask[index] === 1 ? weight : 1));
  const truncated = datum.mask.map(
    (flag, index) => flag === 1 && Math.exp((oldLogprobs[index] as number) - (datum.logprobs[index] as number)) > cap,
  );
  return {
    datum: { ...datum, advantages: datum.advantages.map((advantage, index) => (datum.mask[index] === 1 ? advantage * (weights[index] as number) : 0)) },
    weights,
    truncated,
  };
}
