import type { DesignRecord, EpisodeRecord, RoundReport } from "../../spec/index.js";
import { designFunnel } from "./design-funnel.js";

/** Inputs of {@link buildRoundReport} beyond the stored records. */
export interface RoundReportExtras {
  readonly trainer: RoundReport["trainer"];
  /** The training step's per-role diagnostics (`stepDiagnostics`). */
  readonly diagnostics: RoundReport["diagnostics"];
  readonly seconds: number;
  readonly phaseSeconds?: RoundReport["phaseSeconds"];
  /** Names of the environments the round admitted (from the store). @default [] */
  readonly admittedNames?: readonly string[];
}

/**
 * Computes a round's report from what the store holds, so a resumed round
 * reports exactly what a straight one would. Solver win rates count every
 * episode of the round (solver phase and calibration) by hint condition, and
 * the invalid-action rate every turn of them;
 * the Designer's mean reward counts designs the model actually answered.
 * Infrastructure errors (model errors, sandbox failures of episodes) are
 * counted by message prefix.
 */
export function buildRoundReport(
  round: number,
  designs: readonly DesignRecord[],
  episodes: readonly EpisodeRecord[],
  extras: RoundReportExtras,
): RoundReport {
  const rejected: Record<string, number> = {};
  const errors: Record<string, number> = {};
  for (const design of designs) {
    const last = design.verdicts.at(-1);
    if (design.environmentId !== null || last === undefined || last.status !== "reject") continue;
    rejected[last.reason] = (rejected[last.reason] ?? 0) + 1;
    if (last.reason === "model_error") count(errors, last.message);
  }
  for (const record of episodes) {
    const failure = record.episode.failure;
    if (failure !== undefined) count(errors, `episode ${failure.kind}: ${failure.message}`);
  }
  const funnel = designFunnel(designs);
  const answered = designs.filter((design) => design.completion.length > 0);
  const winRate = (hint: boolean) => {
    const group = episodes.filter((record) => record.hint === hint);
    return group.length === 0 ? null : group.filter((record) => record.episode.won).length / group.length;
  };
  const turns = episodes.flatMap((record) => record.episode.turns);
  const invalidActionRate = turns.length === 0 ? null : turns.filter((turn) => turn.invalidAction === true).length / turns.length;
  return {
    round,
    proposed: designs.length,
    admitted: designs.filter((design) => design.environmentId !== null).length,
    rejected,
    solver: { episodes: episodes.length, winRateNoHint: winRate(false), winRateHint: winRate(true), invalidActionRate },
    designer: {
      meanReward: answered.length === 0 ? null : answered.reduce((total, design) => total + design.reward, 0) / answered.length,
      meanAttempts: funnel.designs === 0 ? null : funnel.meanAttempts,
      admittedOnTurn: funnel.admittedOnTurn,
      admittedNames: extras.admittedNames ?? [],
    },
    trainer: extras.trainer,
    diagnostics: extras.diagnostics,
    errors,
    seconds: extras.seconds,
    ...(extras.phaseSeconds === undefined ? {} : { phaseSeconds: extras.phaseSeconds }),
  };
}

function count(into: Record<string, number>, message: string): void {
  const key = message.length > 400 ? `${message.slice(0, 397)}...` : message;
  into[key] = (into[key] ?? 0) + 1;
}
