import type { Config } from "../../config/index.js";
import type { DesignRecord, EnvironmentRecord, EpisodeRecord, Trainer } from "../../spec/index.js";
import {
  buildDatums,
  computeAdvantages,
  lossConfig,
  stepDiagnostics,
  type AdvantageSample,
  type DesignDiagnosticsInput,
  type StepDiagnostics,
  type TokenTrajectory,
} from "../advantages/index.js";
import { classifyDesignFailure, solverRewardOfEpisode } from "../rewards/index.js";

/** What {@link runTrainingStep} reports. */
export interface TrainingStepResult {
  readonly policyVersion: number;
  /** Datums sent to the trainer. */
  readonly datums: number;
  /** Kept samples that had no token trajectory, so produced no datum. */
  readonly samplesWithoutTokens: number;
  readonly diagnostics: StepDiagnostics;
}

/**
 * The policy-update step of a round (design map, data flow; issue 5): Solver
 * rewards from every episode of the round (`solverRewardOfEpisode`), Designer
 * rewards from the stored designs, group-relative advantages with roles in
 * separate groups (`computeAdvantages`), datums from token trajectories
 * (`buildDatums`), one `forwardBackward` + `optimStep` on the trainer, and the
 * step's diagnostics (`stepDiagnostics`).
 *
 * Trajectories need the token ids of whole conversations (prompt, observation
 * and action tokens); the providers give action tokens only, so `trajectories`
 * is empty until the training issue supplies them, and no datum is built.
 */
export async function runTrainingStep(
  round: number,
  episodes: readonly EpisodeRecord[],
  designs: readonly DesignRecord[],
  memory: readonly EnvironmentRecord[],
  config: Config,
  trainer: Trainer,
  trajectories: ReadonlyMap<string, TokenTrajectory> = new Map(),
): Promise<TrainingStepResult> {
  const byId = new Map(memory.map((record) => [record.id, record] as const));
  const samples: AdvantageSample[] = [];
  episodes.forEach((record, index) => {
    const range = byId.get(record.environmentId)?.package.manifest.rewardRange;
    if (range === undefined) return;
    samples.push({
      id: `episode/${index}`,
      reward: solverRewardOfEpisode(record.episode, range, config.reward).reward,
      group: { role: "solver", environmentId: record.environmentId, hint: record.hint, policyVersion: record.policyVersion },
    });
  });
  const designInputs: DesignDiagnosticsInput[] = [];
  for (const design of designs) {
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
    samples.push({
      id: `design/${design.index}`,
      reward: design.reward,
      group: { role: "designer", promptHash: design.promptHash, skillGroup: admitted?.package.manifest.skills[0] ?? "none" },
    });
  }
  const advantages = computeAdvantages(samples, config.advantages);
  const { datums, missing } = buildDatums(advantages, trajectories);
  await trainer.forwardBackward(
    datums.map((entry) => entry.datum),
    lossConfig(config.advantages),
  );
  const { learningRate, beta1, beta2, epsilon } = config.trainer;
  const step = await trainer.optimStep({ learningRate, beta1, beta2, epsilon });
  return {
    policyVersion: step.policyVersion,
    datums: datums.length,
    samplesWithoutTokens: missing.length,
    diagnostics: stepDiagnostics({ step: round, advantages, datums, designs: designInputs }),
  };
}
