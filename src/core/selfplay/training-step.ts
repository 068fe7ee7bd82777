import type { Config } from "../../config/index.js";
import type { Datum, DesignRecord, EnvironmentRecord, EpisodeRecord, LossConfig, RoundReport, Trainer } from "../../spec/index.js";
import {
  buildDatums,
  computeAdvantages,
  designTrajectories,
  episodeTrajectories,
  lossConfig,
  stepDiagnostics,
  type AdvantageSample,
  type DesignDiagnosticsInput,
  type StepDiagnostics,
  type TokenTrajectory,
} from "../advantages/index.js";
import { classifyDesignFailure, solverRewardOfEpisode } from "../rewards/index.js";
import { planStep, scheduleDesignerDatums, type PendingDesignerDatums } from "./coevolution.js";
import { correctOffPolicyDatums, importanceStatistics, NO_CORRECTION, type OffPolicyCorrection } from "./off-policy-correction.js";

/** What {@link runTrainingStep} works on. */
export interface TrainingStepInput {
  /** 1-based training step (one self-play round). */
  readonly step: number;
  /** The round's Solver and calibration episodes. */
  readonly episodes: readonly EpisodeRecord[];
  /** The round's designs. */
  readonly designs: readonly DesignRecord[];
  readonly memory: readonly EnvironmentRecord[];
  readonly config: Config;
  readonly trainer: Trainer;
  /** Designer datums generated earlier and waiting for their delayed update (stored by the caller). */
  readonly pendingDesigner: PendingDesignerDatums;
  /**
   * Apply the update (`forwardBackward` + `optimStep`). False when a resumed run's
   * trainer checkpoint already holds this step's update: everything else is
   * recomputed (deterministically) so the pending datums and diagnostics match. @default true
   */
  readonly apply?: boolean;
  /**
   * The round's samples came from an inference engine, not from the trainer's own sampler
   * (`trainer.sampler` "engine"): their logprobs are the engine's (tempered, quantised), so every
   * datum, the Solver's too, is corrected against the trainer before the update
   * ({@link correctOffPolicyDatums}) and the mismatch is reported. @default false
   */
  readonly engineSampled?: boolean;
}

/**
 * The engine–trainer mismatch of one step, over its Solver datums (sampled with the policy version
 * being updated, so the ratio measures the engine alone: quantisation, temperature, penalties);
 * the report's `trainer.samplerMismatch`.
 */
export type SamplerMismatch = NonNullable<RoundReport["trainer"]["samplerMismatch"]>;

/** What {@link runTrainingStep} reports. */
export interface TrainingStepResult {
  readonly policyVersion: number;
  /** Datums sent to the trainer this step (Solver datums + due Designer datums). */
  readonly datums: number;
  /** Kept samples that had no token trajectory, so produced no datum. */
  readonly samplesWithoutTokens: number;
  /** The Designer datums of this step's generation and those trained on now. */
  readonly designer: {
    readonly generated: number;
    readonly trained: number;
    /** Mean truncated importance weight of the trained ones (1 when none, or when the backend has no `forward`). */
    readonly importanceWeightMean: number;
    readonly importanceTruncatedFraction: number;
  };
  /** Engine–trainer mismatch of this step's Solver datums; null unless `engineSampled` (or nothing was applied). */
  readonly samplerMismatch: SamplerMismatch | null;
  /** Designer datums still waiting after this step (store them). */
  readonly pendingDesigner: PendingDesignerDatums;
  readonly diagnostics: StepDiagnostics;
}

/** Datums left as they are: no correction, neutral statistics. */
function unchanged(datums: readonly Datum[]): OffPolicyCorrection {
  return { ...NO_CORRECTION, datums };
}

/**
 * Accumulates the step's gradients: the Solver's datums (corrected when an engine sampled them)
 * and the due Designer datums (always corrected: sampled `designerDelay` versions ago). A backend
 * with `inPassImportanceCorrection` gets on-policy datums and off-policy ones in two
 * `forwardBackward` calls, the second with `importanceCap`, so every datum passes through the
 * model once and the statistics come from the π_old it returns; otherwise each off-policy group
 * is corrected with a `forward` first ({@link correctOffPolicyDatums}) and everything goes into
 * one `forwardBackward`. Without `forward` (noop) nothing is corrected. Both paths give the same
 * gradient before the optimiser step (trainer/tests/test_losses.py).
 */
async function applyUpdate(
  trainer: Trainer,
  loss: LossConfig,
  solverDatums: readonly Datum[],
  designerDatums: readonly Datum[],
  engineSampledInput: boolean,
  cap: number,
): Promise<{ solver: OffPolicyCorrection; designer: OffPolicyCorrection; engineSampled: boolean }> {
  if (trainer.inPassImportanceCorrection === true) {
    const onPolicy = engineSampledInput ? [] : solverDatums;
    const offPolicy = engineSampledInput ? [...solverDatums, ...designerDatums] : designerDatums;
    if (onPolicy.length > 0) await trainer.forwardBackward(onPolicy, loss);
    const result = offPolicy.length > 0 ? await trainer.forwardBackward(offPolicy, { ...loss, importanceCap: cap }) : null;
    const old = offPolicy.map((_, index) => result?.logprobs?.[index] ?? []);
    const solverCount = engineSampledInput ? solverDatums.length : 0;
    const statistics = (datums: readonly Datum[], from: number): OffPolicyCorrection =>
      datums.length === 0 ? unchanged(datums) : { ...importanceStatistics(datums, old.slice(from, from + datums.length), cap), datums };
    return { solver: engineSampledInput ? statistics(solverDatums, 0) : unchanged(solverDatums), designer: statistics(designerDatums, solverCount), engineSampled: engineSampledInput };
  }
  const forward = trainer.forward === undefined ? null : { forward: trainer.forward.bind(trainer) };
  const engineSampled = engineSampledInput && forward !== null;
  // delayed Designer datums are off-policy whatever sampled them; the Solver's only when an engine did
  const designer = forward !== null && designerDatums.length > 0 ? await correctOffPolicyDatums(forward, designerDatums, loss, { cap }) : unchanged(designerDatums);
  const solver = engineSampled && forward !== null ? await correctOffPolicyDatums(forward, solverDatums, loss, { cap }) : unchanged(solverDatums);
  await trainer.forwardBackward([...solver.datums, ...designer.datums], loss);
  return { solver, designer, engineSampled };
}

/**
 * The policy-update step of a round (design map, data flow; issue 6, co-evolution):
 * Solver rewards from every episode of the round (`solverRewardOfEpisode`),
 * Designer rewards from the stored designs, group-relative advantages with roles in
 * separate groups (`computeAdvantages`), datums from the token trajectories the
 * episodes and designs recorded (`episodeTrajectories`, `designTrajectories`,
 * `buildDatums`; samples with advantage 0 are left out).
 *
 * Schedule (co-evolving proposer and solver; SPADE delayed Designer update): the
 * Solver's datums are trained on at once; the Designer's datums of this step go to
 * `pendingDesigner` and are trained on `schedule.designerDelay` steps later, their
 * advantages corrected by truncated importance sampling against the current learner with
 * C = `advantages.importanceCap` (inside the backend's `forwardBackward` when it announces
 * `inPassImportanceCorrection`, else with a `forward` first: `applyUpdate`). Both roles' datums
 * go into the same accumulated gradient (same weights, separate advantages), then one `optimStep`.
 *
 * With `engineSampled` (the policy sampled on an inference engine) every datum's logprobs are the
 * engine's, so the Solver's datums are corrected the same way (truncated importance sampling
 * against the training–inference mismatch, {@link correctOffPolicyDatums}; every corrected datum
 * carries the trainer's π_old as its logprobs); `samplerMismatch` reports KL, largest ratio and
 * truncation.
 *
 * @throws TrainingDataError when a recorded trajectory is inconsistent
 * @throws TrainerRequestError / TrainerUnavailableError from the backend
 */
export async function runTrainingStep(input: TrainingStepInput): Promise<TrainingStepResult> {
  const { config, trainer } = input;
  const byId = new Map(input.memory.map((record) => [record.id, record] as const));
  const samples: AdvantageSample[] = [];
  const trajectories = new Map<string, readonly TokenTrajectory[]>();
  input.episodes.forEach((record, index) => {
    const range = byId.get(record.environmentId)?.package.manifest.rewardRange;
    if (range === undefined) return;
    const id = `episode/${index}`;
    samples.push({
      id,
      reward: solverRewardOfEpisode(record.episode, range, config.reward).reward,
      group: { role: "solver", environmentId: record.environmentId, hint: record.hint, policyVersion: record.policyVersion },
    });
    trajectories.set(id, episodeTrajectories(record.episode));
  });
  const designInputs: DesignDiagnosticsInput[] = [];
  for (const design of input.designs) {
    const admitted = design.environmentId === null ? undefined : byId.get(design.environmentId);
    const failure = classifyDesignFailure(design.verdicts);
    if (admitted?.scores) {
      const { regret, winRateNoHint, winRateHint } = admitted.scores;
      designInputs.push({ kind: "admitted", regret, winRateNoHint, winRateHint });
    } else if (failure !== null) {
      designInputs.push({ kind: "failed", failure });
    } else {
      designInputs.push({ kind: "ignored" });
      continue;
    }
    const id = `design/${design.index}`;
    samples.push({
      id,
      reward: design.reward,
      group: { role: "designer", promptHash: design.promptHash, skillGroup: admitted?.package.manifest.skills[0] ?? "none" },
    });
    trajectories.set(id, designTrajectories(design.tokens));
  }
  const advantages = computeAdvantages(samples, config.advantages);
  const built = buildDatums(advantages, trajectories);
  const loss = lossConfig(config.advantages);
  const plan = planStep(input.step, config.schedule);
  const generated: Datum[] = built.datums.filter((entry) => entry.role === "designer").map((entry) => entry.datum);
  const { pending, due } = scheduleDesignerDatums(input.pendingDesigner, plan, generated);
  const apply = input.apply ?? true;
  const solverBuilt = built.datums.filter((entry) => entry.role === "solver").map((entry) => entry.datum);
  const update = apply ? await applyUpdate(trainer, loss, solverBuilt, due, input.engineSampled ?? false, config.advantages.importanceCap) : { solver: unchanged(solverBuilt), designer: unchanged(due), engineSampled: false };
  const correction = update.designer;
  const solver = update.solver;
  const engineSampled = update.engineSampled;
  const batch = [...solver.datums, ...correction.datums];
  let policyVersion = trainer.policyVersion;
  if (apply) {
    const { learningRate, beta1, beta2, epsilon } = config.trainer;
    policyVersion = (await trainer.optimStep({ learningRate, beta1, beta2, epsilon })).policyVersion;
  }
  return {
    policyVersion,
    datums: batch.length,
    samplesWithoutTokens: built.missing.length,
    designer: {
      generated: generated.length,
      trained: correction.datums.length,
      importanceWeightMean: correction.meanWeight,
      importanceTruncatedFraction: correction.truncatedFraction,
    },
    samplerMismatch: engineSampled ? { tokens: solver.policyTokens, klEstimate: solver.klEstimate, maxRatio: solver.maxRatio, truncatedFraction: solver.truncatedFraction, meanWeight: solver.meanWeight } : null,
    pendingDesigner: pending,
    diagnostics: stepDiagnostics({ step: input.step, advantages, datums: built.datums, designs: designInputs, missing: built.missing, zeroAdvantage: built.zeroAdvantage }),
  };
}

