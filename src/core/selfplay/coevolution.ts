import type { Datum } from "../../spec/index.js";

/** The co-evolution schedule keys (`config.schedule`). */
export interface CoevolutionSchedule {
  /** The Designer generates every k steps. */
  readonly designerEvery: number;
  /** Steps between a Designer generation and the update on its trajectories. */
  readonly designerDelay: number;
}

/** What the schedule does at one training step. */
export interface StepPlan {
  /** 1-based step (one self-play round). */
  readonly step: number;
  /** The Solver updates on this step's episodes: always (co-evolving proposer and solver). */
  readonly solverUpdate: true;
  /** The Designer generates new environments this step: steps 1, 1 + k, 1 + 2k, … */
  readonly designerGenerates: boolean;
  /** The generation step whose Designer trajectories are trained on now (`step − delay`), or null. */
  readonly designerUpdateOf: number | null;
}

/**
 * The co-evolution plan of `step` (co-evolving proposer and solver: Solver update
 * every step, proposer generation and update every k steps; SPADE: delayed Designer
 * update). With delay d, trajectories generated at step g are trained on at g + d.
 *
 * @param step 1-based training step
 * @throws RangeError when `step` < 1 or the schedule is not positive integers
 */
export function planStep(step: number, schedule: CoevolutionSchedule): StepPlan {
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`step must be an integer ≥ 1, got ${step}`);
  if (!Number.isInteger(schedule.designerEvery) || schedule.designerEvery < 1) throw new RangeError(`designerEvery must be ≥ 1`);
  if (!Number.isInteger(schedule.designerDelay) || schedule.designerDelay < 0) throw new RangeError(`designerDelay must be ≥ 0`);
  const generates = (candidate: number) => candidate >= 1 && (candidate - 1) % schedule.designerEvery === 0;
  const source = step - schedule.designerDelay;
  return { step, solverUpdate: true, designerGenerates: generates(step), designerUpdateOf: generates(source) ? source : null };
}

/**
 * Designer datums waiting for their delayed update, keyed by generation step.
 * Plain data so a run can store it and resume without losing them.
 */
export type PendingDesignerDatums = Readonly<Record<string, readonly Datum[]>>;

/**
 * Adds the Designer datums of generation step `step` to `pending`, and takes out
 * those due now per {@link planStep}. Returns the new pending map and the due datums.
 */
export function scheduleDesignerDatums(
  pending: PendingDesignerDatums,
  plan: StepPlan,
  generated: readonly Datum[],
): { readonly pending: PendingDesignerDatums; readonly due: readonly Datum[] } {
  const next: Record<string, readonly Datum[]> = { ...pending };
  if (plan.designerGenerates && generated.length > 0) next[String(plan.step)] = generated;
  if (plan.designerUpdateOf === null) return { pending: next, due: [] };
  const key = String(plan.designerUpdateOf);
  const due = next[key] ?? [];
  delete next[key];
  return { pending: next, due };
}
