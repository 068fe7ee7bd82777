import type { Datum, LossConfig, TrainingClient } from "../../spec/index.js";
import { applyImportanceCorrection, DEFAULT_IMPORTANCE_CAP, type ImportanceCorrection } from "../advantages/index.js";

/** Options of {@link correctOffPolicyDatums}. */
export interface OffPolicyCorrectionOptions {
  /** C of the truncated weight `min(π_old / π_sample, C)`. @default {@link DEFAULT_IMPORTANCE_CAP} */
  readonly cap?: number;
}

/** What {@link correctOffPolicyDatums} did and measured. */
export interface OffPolicyCorrection {
  readonly datums: readonly Datum[];
  /** Policy tokens (mask 1) the statistics are over. */
  readonly policyTokens: number;
  /** Fraction of policy tokens whose ratio π_old/π_sample exceeded the cap (0 when there are none). */
  readonly truncatedFraction: number;
  /** Mean per-token weight min(π_old/π_sample, C) over policy tokens (1 when there are none). */
  readonly meanWeight: number;
  /**
   * Mean per-token estimate of KL(π_sample ‖ π_old), nats: Schulman's k3 estimator
   * `(r − 1) − log r`, r = π_old/π_sample, unbiased and never negative (0 when there are no tokens).
   */
  readonly klEstimate: number;
  /** Largest raw ratio π_old/π_sample over policy tokens (1 when there are none). */
  readonly maxRatio: number;
}

/**
 * Off-policy correction of datums whose sampling logprobs are not those of the policy being
 * updated: π_old is the current learner's logprob of each target token from one gradient-free
 * `forward`; each policy token's advantage is multiplied by `min(π_old / π_sample, C)`
 * ({@link applyImportanceCorrection}) and the datum's logprobs become π_old (0 where masked), so
 * the trainer's ratio `π_θ / π_old` starts at 1 and the sampler's distribution enters only through
 * the truncated weight (decoupled PPO; keeping π_sample in the datum would count the ratio twice,
 * once in the weight and once in the trainer's ratio). Two uses, one mechanism: Designer datums
 * sampled `designerDelay` policy versions ago (SPADE, delayed Designer update), and datums sampled
 * on an inference engine whose distribution differs from the trainer's (temperature, penalties,
 * quantised weights: truncated importance sampling against the training–inference mismatch,
 * Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy RL training").
 *
 * @throws TrainerRequestError / TrainerUnavailableError from the backend
 * @throws TrainingDataError when the backend returns logprobs of the wrong length
 */
export async function correctOffPolicyDatums(
  trainer: Pick<TrainingClient, "forward">,
  datums: readonly Datum[],
  loss: LossConfig,
  options: OffPolicyCorrectionOptions = {},
): Promise<OffPolicyCorrection> {
  const cap = options.cap ?? DEFAULT_IMPORTANCE_CAP;
  if (datums.length === 0) return { ...NO_CORRECTION, datums: [] };
  const learner = await trainer.forward(datums, loss);
  const old = datums.map((_, index) => learner.logprobs?.[index] ?? []);
  const corrections = datums.map((datum, index) => applyImportanceCorrection(datum, old[index] as readonly number[], cap));
  const corrected = corrections.map((correction, index) => ({
    ...correction.datum,
    logprobs: correction.datum.mask.map((flag, position) => (flag === 1 ? ((old[index] as readonly number[])[position] as number) : 0)),
  }));
  return { ...statisticsOf(datums, old, corrections), datums: corrected };
}

/** The statistics of an off-policy correction that changed nothing (no datum, or no policy token). */
export const NO_CORRECTION: Omit<OffPolicyCorrection, "datums"> = { policyTokens: 0, truncatedFraction: 0, meanWeight: 1, klEstimate: 0, maxRatio: 1 };

/**
 * The statistics of {@link OffPolicyCorrection} over the policy tokens (mask 1) of `datums`, from
 * their sampling logprobs and the learner's π_old per datum and target token: the truncated
 * fraction and mean of `min(π_old/π_sample, C)`, the k3 estimate of KL(π_sample ‖ π_old) and the
 * largest raw ratio. Shared by the two-pass correction ({@link correctOffPolicyDatums}) and the
 * in-pass one (`LossConfig.importanceCap`, where π_old is what `forwardBackward` returns).
 *
 * @throws TrainingDataError when a datum's π_old has the wrong length or a logprob is not finite
 */
export function importanceStatistics(datums: readonly Datum[], oldLogprobs: readonly (readonly number[])[], cap: number = DEFAULT_IMPORTANCE_CAP): Omit<OffPolicyCorrection, "datums"> {
  return statisticsOf(datums, oldLogprobs, datums.map((datum, index) => applyImportanceCorrection(datum, oldLogprobs[index] ?? [], cap)));
}

/** {@link importanceStatistics} from corrections already computed (one per datum). */
function statisticsOf(datums: readonly Datum[], oldLogprobs: readonly (readonly number[])[], corrections: readonly ImportanceCorrection[]): Omit<OffPolicyCorrection, "datums"> {
  let truncated = 0;
  let weightSum = 0;
  let klSum = 0;
  let maxRatio = 0;
  let policyTokens = 0;
  datums.forEach((datum, index) => {
    const old = oldLogprobs[index] ?? [];
    const correction = corrections[index] as ImportanceCorrection;
    datum.mask.forEach((flag, position) => {
      if (flag !== 1) return;
      const logRatio = (old[position] as number) - (datum.logprobs[position] as number);
      policyTokens += 1;
      weightSum += correction.weights[position] as number;
      klSum += Math.expm1(logRatio) - logRatio;
      maxRatio = Math.max(maxRatio, Math.exp(logRatio));
      if (correction.truncated[position]) truncated += 1;
    });
  });
  if (policyTokens === 0) return NO_CORRECTION;
  return { policyTokens, truncatedFraction: truncated / policyTokens, meanWeight: weightSum / policyTokens, klEstimate: klSum / policyTokens, maxRatio };
}
