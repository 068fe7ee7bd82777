import type { Datum } from "../../spec/index.js";
import type { DesignFailureClass } from "../rewards/index.js";
import type { AdvantageResult } from "./compute-advantages.js";
import type { RoleDatum } from "./build-datum.js";
import type { Role } from "./group-key.js";
import { meanOrNull, populationStd, quantile } from "./statistics.js";

/** What became of one design, for the Designer diagnostics. */
export type DesignDiagnosticsInput =
  | {
      readonly kind: "admitted";
      /** Hint regret (return units). */
      readonly regret: number;
      readonly winRateNoHint: number;
      readonly winRateHint: number;
    }
  | { readonly kind: "failed"; readonly failure: DesignFailureClass }
  /** The design produced no completion to judge (e.g. the model call failed). */
  | { readonly kind: "ignored" };

/** Input of {@link stepDiagnostics}. */
export interface StepDiagnosticsInput {
  /** Training step (or round) number. */
  readonly step: number;
  readonly advantages: AdvantageResult;
  readonly datums: readonly RoleDatum[];
  /** This step's designs. @default [] */
  readonly designs?: readonly DesignDiagnosticsInput[];
  /** Ids of kept samples without tokens (`buildDatums().missing`). @default [] */
  readonly missing?: readonly string[];
  /** Ids of kept samples with advantage 0, so no datum (`buildDatums().zeroAdvantage`). @default [] */
  readonly zeroAdvantage?: readonly string[];
}

/** Diagnostics of one role in one step. Statistics of empty sets are null. */
export interface RoleDiagnostics {
  /** Samples of the role (kept and dropped). */
  readonly samples: number;
  /** Mean and population std of the rewards of all the role's samples. */
  readonly rewardMean: number | null;
  readonly rewardStd: number | null;
  /** Mean and population std of the advantages of the kept samples. */
  readonly advantageMean: number | null;
  readonly advantageStd: number | null;
  readonly groupsKept: number;
  /** Groups dropped for zero reward variance. */
  readonly groupsDropped: number;
  /** Loss weight of the role's samples. */
  readonly lossWeight: number;
  readonly datums: number;
  /** Kept samples with no token trajectory (the provider gave no tokens), so no datum. */
  readonly samplesWithoutTokens: number;
  /** Kept samples with advantage 0, dropped before the trainer (no gradient). */
  readonly zeroAdvantageSamples: number;
  /** Fraction of target tokens with mask 0 (prompt and environment tokens). */
  readonly maskedTokenFraction: number | null;
  /** Over policy tokens (mask 1); on-policy tokens count as weight 1, not truncated. */
  readonly importanceWeightMean: number | null;
  readonly importanceWeightMax: number | null;
  readonly importanceTruncatedFraction: number | null;
}

/** Summary of a distribution. */
export interface DistributionSummary {
  readonly count: number;
  readonly mean: number | null;
  readonly std: number | null;
  readonly min: number | null;
  /** Linear-interpolated quartiles. */
  readonly p25: number | null;
  readonly median: number | null;
  readonly p75: number | null;
  readonly max: number | null;
}

/** Designer-only diagnostics. */
export interface DesignerStepDiagnostics {
  /** Hint regret of the admitted designs. */
  readonly regret: DistributionSummary;
  /** Mean no-hint and with-hint win rates of the admitted designs. */
  readonly winRateNoHint: number | null;
  readonly winRateHint: number | null;
  /** Where designs stopped: counts per stage, in pipeline order. */
  readonly admissionFunnel: {
    readonly designs: number;
    readonly ignored: number;
    readonly unparseable: number;
    readonly mechanicalReject: number;
    readonly reviewReject: number;
    readonly admitted: number;
  };
}

/** Diagnostics of one training step: a plain JSON-serialisable object. */
export interface StepDiagnostics {
  readonly step: number;
  readonly solver: RoleDiagnostics;
  readonly designer: RoleDiagnostics & DesignerStepDiagnostics;
}

/**
 * Per-step, per-role training diagnostics (envforge issue 5, item 6): reward
 * and advantage moments, groups kept and dropped, masked token fraction,
 * importance weight mean/max/truncated fraction; for the Designer also the
 * regret distribution, win rates with and without the hint and the admission funnel.
 * Pure; the caller writes the result to the metrics log and the report.
 */
export function stepDiagnostics(input: StepDiagnosticsInput): StepDiagnostics {
  const designs = input.designs ?? [];
  const admitted = designs.flatMap((design) => (design.kind === "admitted" ? [design] : []));
  const failures = (failure: DesignFailureClass) => designs.filter((design) => design.kind === "failed" && design.failure === failure).length;
  return {
    step: input.step,
    solver: roleDiagnostics("solver", input),
    designer: {
      ...roleDiagnostics("designer", input),
      regret: summarize(admitted.map((design) => design.regret)),
      winRateNoHint: meanOrNull(admitted.map((design) => design.winRateNoHint)),
      winRateHint: meanOrNull(admitted.map((design) => design.winRateHint)),
      admissionFunnel: {
        designs: designs.length,
        ignored: designs.filter((design) => design.kind === "ignored").length,
        unparseable: failures("unparseable"),
        mechanicalReject: failures("mechanical_reject"),
        reviewReject: failures("review_reject"),
        admitted: admitted.length,
      },
    },
  };
}

function roleDiagnostics(role: Role, input: StepDiagnosticsInput): RoleDiagnostics {
  const samples = input.advantages.samples.filter((sample) => sample.role === role);
  const kept = samples.filter((sample) => sample.kept);
  const datums = input.datums.filter((entry) => entry.role === role);
  let targets = 0;
  let masked = 0;
  const weights: number[] = [];
  let truncated = 0;
  for (const { datum, importance } of datums) {
    targets += datum.mask.length;
    datum.mask.forEach((flag, index) => {
      if (flag !== 1) {
        masked += 1;
        return;
      }
      weights.push(importance ? (importance.weights[index] as number) : 1);
      if (importance?.truncated[index]) truncated += 1;
    });
  }
  const advantages = kept.map((sample) => sample.advantage);
  const ofRole = (ids: readonly string[] | undefined) => kept.filter((sample) => (ids ?? []).includes(sample.id)).length;
  return {
    samples: samples.length,
    rewardMean: meanOrNull(samples.map((sample) => sample.reward)),
    rewardStd: populationStd(samples.map((sample) => sample.reward)),
    advantageMean: meanOrNull(advantages),
    advantageStd: populationStd(advantages),
    groupsKept: input.advantages.groupsKept[role],
    groupsDropped: input.advantages.groupsDropped[role],
    lossWeight: input.advantages.weights[role],
    datums: datums.length,
    samplesWithoutTokens: ofRole(input.missing),
    zeroAdvantageSamples: ofRole(input.zeroAdvantage),
    maskedTokenFraction: targets === 0 ? null : masked / targets,
    importanceWeightMean: meanOrNull(weights),
    importanceWeightMax: weights.length === 0 ? null : Math.max(...weights),
    importanceTruncatedFraction: weights.length === 0 ? null : truncated / weights.length,
  };
}

/** Count, mean, population std, min, quartiles and max of the values (nulls when empty). */
export function summarize(values: readonly number[]): DistributionSummary {
  return {
    count: values.length,
    mean: meanOrNull(values),
    std: populationStd(values),
    min: values.length === 0 ? null : Math.min(...values),
    p25: quantile(values, 0.25),
    median: quantile(values, 0.5),
    p75: quantile(values, 0.75),
    max: values.length === 0 ? null : Math.max(...values),
  };
}
