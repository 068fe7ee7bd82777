import type { Datum } from "../../spec/index.js";
import type { AdvantageResult } from "./compute-advantages.js";
import type { Role } from "./group-key.js";
import type { TokenTrajectory } from "./trajectory.js";
import { TrainingDataError } from "./training-data-error.js";

/** What {@link buildDatum} needs for one sample. */
export interface DatumInput {
  readonly trajectory: TokenTrajectory;
  /** The sample's advantage (`SampleAdvantage.advantage`). */
  readonly advantage: number;
  /** The sample's loss weight (`SampleAdvantage.weight`). @default 1 */
  readonly weight?: number;
}

/**
 * The training datum of one trajectory in the Tinker API shape (design map,
 * "Datum"; Tinker cookbook RL datums): with `t` the concatenated tokens of all
 * segments (length N ≥ 2),
 * - `modelInput = t[0 .. N−2]`, `targetTokens = t[1 .. N−1]` (shifted by one; both length N−1);
 * - position i predicts `t[i+1]`: `mask[i] = 1` iff `t[i+1]` is a policy token;
 * - `logprobs[i]` = sampling logprob of `t[i+1]` where masked in, else 0;
 * - `advantages[i] = advantage · weight` where masked in, else 0.
 * A policy token at position 0 has no context and is never a target.
 *
 * @throws TrainingDataError when the trajectory has fewer than 2 tokens, a
 *   policy segment's logprobs differ in length from its tokens, or advantage,
 *   weight or a logprob is not finite
 */
export function buildDatum(input: DatumInput): Datum {
  const weight = input.weight ?? 1;
  if (!Number.isFinite(input.advantage) || !Number.isFinite(weight)) {
    throw new TrainingDataError(`advantage ${input.advantage} and weight ${weight} must be finite`);
  }
  const tokens: number[] = [];
  const logprobs: number[] = [];
  const policy: boolean[] = [];
  for (const [index, segment] of input.trajectory.segments.entries()) {
    if (segment.source === "policy") {
      if (segment.logprobs.length !== segment.tokens.length) {
        throw new TrainingDataError(
          `policy segment ${index} has ${segment.tokens.length} tokens but ${segment.logprobs.length} logprobs`,
        );
      }
      for (const [position, token] of segment.tokens.entries()) {
        const logprob = segment.logprobs[position] as number;
        if (!Number.isFinite(logprob)) throw new TrainingDataError(`policy segment ${index} has a non-finite logprob at ${position}`);
        tokens.push(token);
        logprobs.push(logprob);
        policy.push(true);
      }
    } else {
      for (const token of segment.tokens) {
        tokens.push(token);
        logprobs.push(0);
        policy.push(false);
      }
    }
  }
  if (tokens.length < 2) throw new TrainingDataError(`a datum needs at least 2 tokens, the trajectory has ${tokens.length}`);
  const scaled = input.advantage * weight;
  const targets = tokens.slice(1);
  const mask = targets.map((_, position) => (policy[position + 1] ? 1 : 0));
  return {
    modelInput: tokens.slice(0, -1),
    targetTokens: targets,
    logprobs: mask.map((flag, position) => (flag === 1 ? (logprobs[position + 1] as number) : 0)),
    advantages: mask.map((flag) => (flag === 1 ? scaled : 0)),
    mask,
  };
}

/** A datum of one role, with its importance correction when one was applied. */
export interface RoleDatum {
  /** Id of the sample the datum came from. */
  readonly id: string;
  readonly role: Role;
  readonly datum: Datum;
  /** From `applyImportanceCorrection`; absent for on-policy data (all weights 1, none truncated). */
  readonly importance?: { readonly weights: readonly number[]; readonly truncated: readonly boolean[] };
}

/** What {@link buildDatums} returns. */
export interface BuiltDatums {
  /** Datums in sample order (a sample with several trajectories gives several). */
  readonly datums: readonly RoleDatum[];
  /** Ids of kept samples without any token trajectory (their provider gave no tokens). */
  readonly missing: readonly string[];
  /** Ids of kept samples whose advantage × weight is 0: their datums would carry no gradient, so none is built. */
  readonly zeroAdvantage: readonly string[];
}

/**
 * Datums of every kept sample (dropped groups produce none), one per token
 * trajectory of the sample, each built by {@link buildDatum} with the sample's
 * advantage and role weight. Samples whose scaled advantage is 0 get no datum
 * (all their token advantages would be 0: no gradient, only trainer work).
 *
 * @param advantages the result of `computeAdvantages`
 * @param trajectories token trajectories by sample id (a Solver episode may have one per turn)
 * @throws TrainingDataError as {@link buildDatum}
 */
export function buildDatums(advantages: AdvantageResult, trajectories: ReadonlyMap<string, readonly TokenTrajectory[]>): BuiltDatums {
  const datums: RoleDatum[] = [];
  const missing: string[] = [];
  const zeroAdvantage: string[] = [];
  for (const sample of advantages.samples) {
    if (!sample.kept) continue;
    const sequences = trajectories.get(sample.id) ?? [];
    if (sequences.length === 0) {
      missing.push(sample.id);
      continue;
    }
    if (sample.advantage * sample.weight === 0) {
      zeroAdvantage.push(sample.id);
      continue;
    }
    for (const trajectory of sequences) {
      datums.push({ id: sample.id, role: sample.role, datum: buildDatum({ trajectory, advantage: sample.advantage, weight: sample.weight }) });
    }
  }
  return { datums, missing, zeroAdvantage };
}
