import type { Verdict } from "../../spec/index.js";
import { DEFAULT_DESIGNER_REWARD, designerReward, type DesignerRewardParams } from "./designer-reward.js";
import {
  DEFAULT_LEARNING_POTENTIAL,
  EMPTY_LEARNING_POTENTIAL,
  learningPotential,
  type LearningPotentialParams,
  type LearningPotentialState,
} from "./learning-potential.js";

/**
 * Designer reward modes (config `reward.mode`):
 * - `regret-blend` (default; SPADE): `0.4 · min(regret/0.15, 1) + 0.6 · anchor(w)`;
 * - `admission` (co-evolving proposer and solver): −1 broken, −0.25 admitted outside the calibration band, +1 admitted;
 * - `learnability` (Absolute Zero): `1 − p` when `0 < p < 1`, else 0;
 * - `uncertainty` (R-Zero): `1 − 2·|p − 0.5|`;
 * - `learning-potential`: `|fast EMA − slow EMA|` of the pass rate per skill.
 * `p` and `w` are the no-hint pass (win) rate of the calibration plays.
 */
export type DesignerRewardMode = "regret-blend" | "admission" | "learnability" | "uncertainty" | "learning-potential";

/** Every {@link DesignerRewardMode}, default first. */
export const DESIGNER_REWARD_MODES: readonly DesignerRewardMode[] = [
  "regret-blend",
  "admission",
  "learnability",
  "uncertainty",
  "learning-potential",
];

/**
 * Why a design earned no environment:
 * - `unparseable`: the completion could not be parsed into a package;
 * - `mechanical_reject`: a mechanical gate (static checks, execution, oracle, calibration) rejected it;
 * - `review_reject`: a semantic review or the novelty gate rejected it.
 */
export type DesignFailureClass = "unparseable" | "mechanical_reject" | "review_reject";

/** Calibration results of an admitted design, as the reward modes read them. */
export interface DesignCalibration {
  /** Hint regret, return units (`hintRegret`); negative values are floored at 0 by `regret-blend`. */
  readonly regret: number;
  /** No-hint win (pass) rate over the calibration plays, in [0, 1]. */
  readonly winRateNoHint: number;
  /** The environment's skill tags (`manifest.skills`); read by `learning-potential`. */
  readonly skills: readonly string[];
}

/** What became of one design. */
export type DesignOutcome =
  | { readonly kind: "failed"; readonly failure: DesignFailureClass }
  | { readonly kind: "admitted"; readonly calibration: DesignCalibration };

/** Penalty per {@link DesignFailureClass}, used by every mode except `admission`. */
export interface DesignFailurePenalties {
  /** Config `reward.unparseablePenalty`. @default -1 */
  readonly unparseable: number;
  /** Config `reward.rejectedPenalty`. @default -0.5 */
  readonly mechanicalReject: number;
  /** Config `reward.reviewRejectedPenalty`. @default -0.5 */
  readonly reviewReject: number;
}

/** Constants of the `admission` mode (co-evolving proposer and solver). */
export interface AdmissionRewardParams {
  /** Reward of a design that failed admission, whatever the class. @default -1 */
  readonly broken: number;
  /** Reward of an admitted design whose pass rate lies outside the calibration band. @default -0.25 */
  readonly outsideBand: number;
  /** Reward of an admitted design inside the band. @default 1 */
  readonly admitted: number;
  /** Exclusive lower edge of the band: inside iff `bandLow < p < bandHigh` (EvoEnv: 0 < p < 1). @default 0 */
  readonly bandLow: number;
  /** Exclusive upper edge of the band. @default 1 */
  readonly bandHigh: number;
}

/** Everything the Designer reward modes read; one value per run, built from the `reward` config block. */
export interface DesignerRewardSettings {
  /** Which mode scores admitted designs. @default "regret-blend" */
  readonly mode: DesignerRewardMode;
  /** `regret-blend` constants. @default {@link DEFAULT_DESIGNER_REWARD} */
  readonly regretBlend: DesignerRewardParams;
  /** Failure penalties of every mode except `admission`. */
  readonly failurePenalties: DesignFailurePenalties;
  /** `admission` constants. */
  readonly admission: AdmissionRewardParams;
  /** `learning-potential` EMA rates. */
  readonly learningPotential: LearningPotentialParams;
}

/** Default {@link DesignerRewardSettings}: SPADE regret blend and the documented constants. */
export const DEFAULT_DESIGNER_REWARD_SETTINGS: DesignerRewardSettings = {
  mode: "regret-blend",
  regretBlend: DEFAULT_DESIGNER_REWARD,
  failurePenalties: { unparseable: -1, mechanicalReject: -0.5, reviewReject: -0.5 },
  admission: { broken: -1, outsideBand: -0.25, admitted: 1, bandLow: 0, bandHigh: 1 },
  learningPotential: DEFAULT_LEARNING_POTENTIAL,
};

/** Reward of one design and the learning-potential state after it. */
export interface DesignerRewardResult {
  readonly mode: DesignerRewardMode;
  readonly reward: number;
  /** Unchanged except in `learning-potential` mode for admitted designs. */
  readonly state: LearningPotentialState;
}

/**
 * One Designer reward mode (style.md item 2: an interface, several
 * implementations, one default). `admitted` scores a calibrated design,
 * `failed` a design that earned no environment.
 */
export interface DesignerRewardStrategy {
  readonly mode: DesignerRewardMode;
  admitted(calibration: DesignCalibration, settings: DesignerRewardSettings, state: LearningPotentialState): DesignerRewardResult;
  failed(failure: DesignFailureClass, settings: DesignerRewardSettings, state: LearningPotentialState): DesignerRewardResult;
}

/**
 * Penalty of a failure class from the table (every mode except `admission`).
 * @returns `failurePenalties[class]`
 */
export function designFailurePenalty(failure: DesignFailureClass, penalties: DesignFailurePenalties): number {
  switch (failure) {
    case "unparseable":
      return penalties.unparseable;
    case "mechanical_reject":
      return penalties.mechanicalReject;
    case "review_reject":
      return penalties.reviewReject;
  }
}

/**
 * Learnability reward (Absolute Zero, proposer reward): `1 − p` when `0 < p < 1`, else 0.
 * @param passRate no-hint pass rate in [0, 1]
 */
export function learnabilityReward(passRate: number): number {
  return passRate > 0 && passRate < 1 ? 1 - passRate : 0;
}

/**
 * Uncertainty reward (R-Zero, challenger reward): `1 − 2·|p − 0.5|`; 1 at p = 0.5, 0 at p ∈ {0, 1}.
 * @param passRate no-hint pass rate in [0, 1]
 */
export function uncertaintyReward(passRate: number): number {
  return 1 - 2 * Math.abs(passRate - 0.5);
}

/**
 * Admission reward of an admitted design (co-evolving proposer and solver):
 * `admitted` when `bandLow < p < bandHigh`, else `outsideBand`.
 * @param passRate no-hint pass rate in [0, 1]
 */
export function admissionReward(passRate: number, params: AdmissionRewardParams): number {
  return passRate > params.bandLow && passRate < params.bandHigh ? params.admitted : params.outsideBand;
}

function stateless(mode: DesignerRewardMode, score: (calibration: DesignCalibration, settings: DesignerRewardSettings) => number): DesignerRewardStrategy {
  return {
    mode,
    admitted: (calibration, settings, state) => ({ mode, reward: score(calibration, settings), state }),
    failed: (failure, settings, state) => ({ mode, reward: designFailurePenalty(failure, settings.failurePenalties), state }),
  };
}

/** The built-in strategies, one per {@link DesignerRewardMode}. */
export const DESIGNER_REWARD_STRATEGIES: Readonly<Record<DesignerRewardMode, DesignerRewardStrategy>> = {
  "regret-blend": stateless("regret-blend", (c, s) => designerReward(c.regret, c.winRateNoHint, s.regretBlend)),
  admission: {
    mode: "admission",
    admitted: (c, s, state) => ({ mode: "admission", reward: admissionReward(c.winRateNoHint, s.admission), state }),
    failed: (_failure, s, state) => ({ mode: "admission", reward: s.admission.broken, state }),
  },
  learnability: stateless("learnability", (c) => learnabilityReward(c.winRateNoHint)),
  uncertainty: stateless("uncertainty", (c) => uncertaintyReward(c.winRateNoHint)),
  "learning-potential": {
    mode: "learning-potential",
    admitted: (c, s, state) => ({ mode: "learning-potential", ...learningPotential(state, c.skills, c.winRateNoHint, s.learningPotential) }),
    failed: (failure, s, state) => ({ mode: "learning-potential", reward: designFailurePenalty(failure, s.failurePenalties), state }),
  },
};

/**
 * The Designer reward of one design under the configured mode: dispatches to
 * `DESIGNER_REWARD_STRATEGIES[settings.mode]`. Failed designs get the mode's
 * failure reward (the per-class penalty; `admission` mode: `broken`).
 *
 * @param outcome the design's fate: a failure class or the calibration of the admitted environment
 * @param settings constants of every mode; {@link DEFAULT_DESIGNER_REWARD_SETTINGS} by default
 * @param state learning-potential averages; only `learning-potential` mode reads or changes them
 * @returns the reward and the next state (pass it to the next call)
 */
export function scoreDesign(
  outcome: DesignOutcome,
  settings: DesignerRewardSettings = DEFAULT_DESIGNER_REWARD_SETTINGS,
  state: LearningPotentialState = EMPTY_LEARNING_POTENTIAL,
): DesignerRewardResult {
  const strategy = DESIGNER_REWARD_STRATEGIES[settings.mode];
  return outcome.kind === "admitted"
    ? strategy.admitted(outcome.calibration, settings, state)
    : strategy.failed(outcome.failure, settings, state);
}

/** Gate names that {@link classifyDesignFailure} maps to classes other than `mechanical_reject`. */
export interface DesignFailureGates {
  /** @default ["parse"] */
  readonly unparseable: readonly string[];
  /** @default ["self-review", "novelty"] */
  readonly review: readonly string[];
  /** Gates whose rejection is not the Designer's fault (no reward, no datum). @default ["model"] */
  readonly ignored: readonly string[];
}

/** Default {@link DesignFailureGates}. */
export const DEFAULT_DESIGN_FAILURE_GATES: DesignFailureGates = {
  unparseable: ["parse"],
  review: ["self-review", "novelty"],
  ignored: ["model"],
};

/**
 * Failure class of a design from its verdicts (the last reject decides).
 * @param verdicts the design's verdicts in the order the stages ran
 * @returns the class; null when nothing rejected it or the reject is an ignored gate (e.g. the model call failed)
 */
export function classifyDesignFailure(
  verdicts: readonly Verdict[],
  gates: DesignFailureGates = DEFAULT_DESIGN_FAILURE_GATES,
): DesignFailureClass | null {
  const last = verdicts[verdicts.length - 1];
  if (last === undefined || last.status !== "reject") return null;
  if (gates.ignored.includes(last.gate)) return null;
  if (gates.unparseable.includes(last.gate)) return "unparseable";
  if (gates.review.includes(last.gate)) return "review_reject";
  return "mechanical_reject";
}

/**
 * The reward-related keys of the `reward` config block, as
 * {@link designerRewardSettingsFromConfig} reads them (structurally `Config["reward"]`).
 */
export interface DesignerRewardConfig extends DesignerRewardParams {
  readonly mode: DesignerRewardMode;
  readonly unparseablePenalty: number;
  readonly rejectedPenalty: number;
  readonly reviewRejectedPenalty: number;
  readonly admissionBroken: number;
  readonly admissionOutsideBand: number;
  readonly admissionAdmitted: number;
  readonly admissionBandLow: number;
  readonly admissionBandHigh: number;
  readonly learningPotentialFastRate: number;
  readonly learningPotentialSlowRate: number;
}

/**
 * {@link DesignerRewardSettings} from the `reward` config block.
 * @param reward `config.reward`
 */
export function designerRewardSettingsFromConfig(reward: DesignerRewardConfig): DesignerRewardSettings {
  return {
    mode: reward.mode,
    regretBlend: {
      regretScale: reward.regretScale,
      regretWeight: reward.regretWeight,
      anchorWeight: reward.anchorWeight,
      anchorLow: reward.anchorLow,
      anchorHigh: reward.anchorHigh,
      anchorWidth: reward.anchorWidth,
    },
    failurePenalties: {
      unparseable: reward.unparseablePenalty,
      mechanicalReject: reward.rejectedPenalty,
      reviewReject: reward.reviewRejectedPenalty,
    },
    admission: {
      broken: reward.admissionBroken,
      outsideBand: reward.admissionOutsideBand,
      admitted: reward.admissionAdmitted,
      bandLow: reward.admissionBandLow,
      bandHigh: reward.admissionBandHigh,
    },
    learningPotential: { fastRate: reward.learningPotentialFastRate, slowRate: reward.learningPotentialSlowRate },
  };
}
