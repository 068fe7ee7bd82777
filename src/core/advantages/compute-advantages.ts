import { groupKeyString, type DesignerGroupBy, type GroupKey, type Role } from "./group-key.js";
import { TrainingDataError } from "./training-data-error.js";

/** One scored sample: a Solver episode or a Designer completion. */
export interface AdvantageSample {
  /** Caller's id of the sample (episode or design id); carried through unchanged. */
  readonly id: string;
  /** Reward in the role's units (Solver: `solverReward`; Designer: `scoreDesign`). Must be finite. */
  readonly reward: number;
  /** The group the sample is normalised in; its `role` is the sample's role. */
  readonly group: GroupKey;
}

/** Options of {@link computeAdvantages}; defaults match the `advantages` config block. */
export interface AdvantageOptions {
  /** Divide `r − mean` by `std(group) + stdEpsilon` (population std). @default false */
  readonly scaleByStd: boolean;
  /** Added to the group std before dividing. @default 1e-6 */
  readonly stdEpsilon: number;
  /** Designer groups: by `prompt` or by `skill` group. @default "prompt" */
  readonly designerGroupBy: DesignerGroupBy;
  /** Cap on the loss weight of the rarer role. @default 50 */
  readonly designerWeightCap: number;
}

/** Default {@link AdvantageOptions}. */
export const DEFAULT_ADVANTAGE_OPTIONS: AdvantageOptions = {
  scaleByStd: false,
  stdEpsilon: 1e-6,
  designerGroupBy: "prompt",
  designerWeightCap: 50,
};

/** A sample with its advantage. */
export interface SampleAdvantage {
  readonly id: string;
  readonly role: Role;
  /** Canonical group key ({@link groupKeyString}). */
  readonly groupKey: string;
  readonly reward: number;
  /** `r − mean(group)` (divided by `std + ε` when scaling); 0 for samples of dropped groups. */
  readonly advantage: number;
  /** Loss weight of the sample's role (1 for the more frequent role); fold into the datum's advantages. */
  readonly weight: number;
  /** False when the sample's group was dropped (constant rewards); such samples produce no datum. */
  readonly kept: boolean;
}

/** One advantage group. */
export interface AdvantageGroup {
  readonly key: string;
  readonly role: Role;
  readonly size: number;
  /** Mean reward, the baseline `b_group`. */
  readonly mean: number;
  /** Population standard deviation of the rewards. */
  readonly std: number;
  /** False when every reward in the group is equal (this includes single-sample groups). */
  readonly kept: boolean;
}

/** Per-role counts. */
export interface RoleCounts {
  readonly solver: number;
  readonly designer: number;
}

/** What {@link computeAdvantages} returns. */
export interface AdvantageResult {
  /** Every input sample, in input order. */
  readonly samples: readonly SampleAdvantage[];
  /** Every group, in order of first appearance. */
  readonly groups: readonly AdvantageGroup[];
  /** Groups kept, per role. */
  readonly groupsKept: RoleCounts;
  /** Groups dropped because their rewards were all equal, per role. */
  readonly groupsDropped: RoleCounts;
  /** Samples in kept groups, per role. */
  readonly samplesKept: RoleCounts;
  /** Loss weight of each role's samples. */
  readonly weights: RoleCounts;
}

/**
 * Group-relative advantages with role-separated groups (SPADE §per-role
 * advantage normalisation; co-evolving proposer and solver: separate advantages
 * per role, groups with constant reward dropped):
 * `A = r − mean(group)`, or `(r − mean(group)) / (std(group) + ε)` with `scaleByStd`.
 * Groups whose rewards are all exactly equal (including single-sample groups)
 * carry no signal; they are dropped and counted.
 *
 * Role loss weight (SPADE, Designer up-weighting): the role with fewer kept
 * samples gets `min(cap, keptOther / keptRarer)` and the other role 1; when
 * either role has no kept samples both weights are 1. With the usual 32 plays
 * per environment the Designer is the rarer role.
 *
 * @param samples rewards with their group keys, both roles mixed freely
 * @param options {@link DEFAULT_ADVANTAGE_OPTIONS} by default
 * @throws TrainingDataError when a reward is not finite
 */
export function computeAdvantages(
  samples: readonly AdvantageSample[],
  options: AdvantageOptions = DEFAULT_ADVANTAGE_OPTIONS,
): AdvantageResult {
  const members = new Map<string, { role: Role; rewards: number[] }>();
  const keys = samples.map((sample) => {
    if (!Number.isFinite(sample.reward)) throw new TrainingDataError(`sample ${sample.id} has a non-finite reward ${sample.reward}`);
    const key = groupKeyString(sample.group, options.designerGroupBy);
    const group = members.get(key) ?? { role: sample.group.role, rewards: [] };
    group.rewards.push(sample.reward);
    members.set(key, group);
    return key;
  });

  const groups: AdvantageGroup[] = [];
  const byKey = new Map<string, AdvantageGroup>();
  for (const [key, { role, rewards }] of members) {
    const mean = rewards.reduce((total, reward) => total + reward, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((total, reward) => total + (reward - mean) ** 2, 0) / rewards.length);
    const first = rewards[0] as number;
    const group: AdvantageGroup = { key, role, size: rewards.length, mean, std, kept: rewards.some((reward) => reward !== first) };
    groups.push(group);
    byKey.set(key, group);
  }

  const count = (predicate: (group: AdvantageGroup) => boolean, weightBySize: boolean): RoleCounts => {
    const counts = { solver: 0, designer: 0 };
    for (const group of groups) if (predicate(group)) counts[group.role] += weightBySize ? group.size : 1;
    return counts;
  };
  const samplesKept = count((group) => group.kept, true);
  const weights = roleWeights(samplesKept, options.designerWeightCap);

  const result = samples.map((sample, index): SampleAdvantage => {
    const key = keys[index] as string;
    const group = byKey.get(key) as AdvantageGroup;
    const centered = sample.reward - group.mean;
    const advantage = !group.kept ? 0 : options.scaleByStd ? centered / (group.std + options.stdEpsilon) : centered;
    return { id: sample.id, role: group.role, groupKey: key, reward: sample.reward, advantage, weight: weights[group.role], kept: group.kept };
  });

  return {
    samples: result,
    groups,
    groupsKept: count((group) => group.kept, false),
    groupsDropped: count((group) => !group.kept, false),
    samplesKept,
    weights,
  };
}

/**
 * Loss weights of the two roles: the rarer role (fewer kept samples) gets
 * `min(cap, kept(other) / kept(rarer))`, the other 1; both 1 when either count is 0.
 *
 * @param kept kept samples per role
 * @param cap upper bound of the weight (SPADE). @default 50
 */
export function roleWeights(kept: RoleCounts, cap = 50): RoleCounts {
  if (kept.solver === 0 || kept.designer === 0) return { solver: 1, designer: 1 };
  if (kept.designer < kept.solver) return { solver: 1, designer: Math.min(cap, kept.solver / kept.designer) };
  if (kept.solver < kept.designer) return { solver: Math.min(cap, kept.designer / kept.solver), designer: 1 };
  return { solver: 1, designer: 1 };
}
