import type { ChatMessage, Datum, LossConfig, Store, Trainer } from "../../spec/index.js";
import { TrainingDataError } from "../advantages/index.js";
import { solverMessages } from "./solver-policy.js";

/** The probe's fixed prompt: a Solver first turn ({@link solverMessages} of a one-line task, no hint). */
export const PROBE_MESSAGES: readonly ChatMessage[] = solverMessages(
  { initialObservation: "Guess the secret number between 1 and 10. Reply with the number only.", observation: "", turns: [] },
  { hint: null },
);

/** The probe's fixed completion, whose per-token logprobs are tracked. */
export const PROBE_COMPLETION = "My guess is 7.";

/** Store metadata key of the probe's mean logprob before the first optimiser step. */
export const PROBE_BASELINE_META = "logprobProbeBaseline";

/** One probe measurement. */
export interface ProbeMeasurement {
  /** Policy version measured at. */
  readonly policyVersion: number;
  /** Mean learner logprob per probe completion token (natural log). */
  readonly meanLogprob: number;
  /** `meanLogprob` minus the baseline measured before the first step: the policy's measured change on the probe. */
  readonly deltaFromStart: number;
  /** Completion tokens of the probe. */
  readonly tokens: number;
}

/**
 * A fixed probe datum: `prompt` followed by `completion`, with mask 1 on the
 * completion tokens only (advantages 0; logprobs 0 as the probe is never sampled).
 * @throws TrainingDataError when the prompt or the completion is empty
 */
export function probeDatum(prompt: readonly number[], completion: readonly number[]): Datum {
  if (prompt.length === 0 || completion.length === 0) throw new TrainingDataError("the logprob probe needs prompt and completion tokens");
  const tokens = [...prompt, ...completion];
  const targets = tokens.slice(1);
  return {
    modelInput: tokens.slice(0, -1),
    targetTokens: targets,
    logprobs: targets.map(() => 0),
    advantages: targets.map(() => 0),
    mask: targets.map((_, index) => (index + 1 >= prompt.length ? 1 : 0)),
  };
}

/**
 * Mean learner logprob per masked token of `probe` (gradient-free `forward`).
 * @throws TrainingDataError when the backend returns logprobs of the wrong length
 */
export async function probeMeanLogprob(trainer: Required<Pick<Trainer, "forward">>, probe: Datum, loss: LossConfig): Promise<number> {
  const result = await trainer.forward([probe], loss);
  const logprobs = result.logprobs?.[0] ?? [];
  if (logprobs.length !== probe.targetTokens.length) {
    throw new TrainingDataError(`the trainer returned ${logprobs.length} probe logprobs for ${probe.targetTokens.length} targets`);
  }
  let sum = 0;
  let count = 0;
  probe.mask.forEach((flag, index) => {
    if (flag !== 1) return;
    sum += logprobs[index] as number;
    count += 1;
  });
  return sum / count;
}

/**
 * Records the probe's baseline (mean logprob before the first optimiser step) in
 * `store` unless a baseline is there already (a resumed run keeps its first one).
 * Returns the baseline, or null when the trainer has no `forward` (noop).
 */
export async function ensureProbeBaseline(trainer: Trainer, probe: Datum, loss: LossConfig, store: Store): Promise<number | null> {
  const stored = store.getMeta(PROBE_BASELINE_META);
  if (typeof stored === "number") return stored;
  if (trainer.forward === undefined) return null;
  const baseline = await probeMeanLogprob({ forward: trainer.forward.bind(trainer) }, probe, loss);
  store.setMeta(PROBE_BASELINE_META, baseline);
  return baseline;
}

/**
 * Measures the probe now and its change since the stored baseline; null when the
 * trainer has no `forward` or no baseline was recorded.
 */
export async function measureProbe(trainer: Trainer, probe: Datum, loss: LossConfig, store: Store): Promise<ProbeMeasurement | null> {
  const baseline = store.getMeta(PROBE_BASELINE_META);
  if (trainer.forward === undefined || typeof baseline !== "number") return null;
  const meanLogprob = await probeMeanLogprob({ forward: trainer.forward.bind(trainer) }, probe, loss);
  return {
    policyVersion: trainer.policyVersion,
    meanLogprob,
    deltaFromStart: meanLogprob - baseline,
    tokens: probe.mask.filter((flag) => flag === 1).length,
  };
}
