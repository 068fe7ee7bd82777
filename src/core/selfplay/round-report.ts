import type { DesignRecord, EnvironmentRecord, EpisodeRecord, LevelReport, RoundReport } from "../../spec/index.js";
import type { LevelWindow } from "../curriculum/index.js";
import { solverSignal } from "../advantages/index.js";
import { designFunnel } from "./design-funnel.js";

/** Inputs of {@link buildRoundReport} beyond the stored records. */
export interface RoundReportExtras {
  readonly trainer: RoundReport["trainer"];
  /** The training step's per-role diagnostics (`stepDiagnostics`). */
  readonly diagnostics: RoundReport["diagnostics"];
  readonly seconds: number;
  /** Seconds of stored work the round's earlier attempts took (a resumed round). */
  readonly earlierSeconds?: number;
  readonly phaseSeconds?: RoundReport["phaseSeconds"];
  /** Names of the environments the round admitted (from the store). @default [] */
  readonly admittedNames?: readonly string[];
  /** The level windows of the round's levelled environments (`levelReports`). @default [] */
  readonly levels?: readonly LevelReport[];
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
    solver: { episodes: episodes.length, winRateNoHint: winRate(false), winRateHint: winRate(true), invalidActionRate, signal: solverSignal(episodes) },
    levels: extras.levels ?? [],
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
    ...(extras.earlierSeconds === undefined ? {} : { earlierSeconds: extras.earlierSeconds }),
    ...(extras.phaseSeconds === undefined ? {} : { phaseSeconds: extras.phaseSeconds }),
  };
}

function count(into: Record<string, number>, message: string): void {
  const key = message.length > 400 ? `${message.slice(0, 397)}...` : message;
  into[key] = (into[key] ?? 0) + 1;
}

/**
 * The {@link LevelReport} of every levelled environment among `environments`
 * that the round's Solver phase played: its window before (`before`) and after
 * (`after`) the round, and the no-hint Solver episodes and wins per level.
 */
export function levelReports(
  environments: readonly EnvironmentRecord[],
  episodes: readonly EpisodeRecord[],
  before: ReadonlyMap<string, LevelWindow>,
  after: ReadonlyMap<string, LevelWindow>,
): LevelReport[] {
  const played = new Set(episodes.filter((record) => record.role === "solver").map((record) => record.environmentId));
  return environments.flatMap((environment): LevelReport[] => {
    const window = before.get(environment.id);
    const next = after.get(environment.id);
    if (!played.has(environment.id) || environment.package.manifest.levels === undefined || window === undefined || next === undefined) return [];
    const byLevel: Record<string, { episodes: number; wins: number }> = {};
    for (const record of episodes) {
      if (record.environmentId !== environment.id || record.role !== "solver" || record.hint) continue;
      const key = String(record.episode.level ?? 0);
      const entry = (byLevel[key] ??= { episodes: 0, wins: 0 });
      entry.episodes += 1;
      if (record.episode.won) entry.wins += 1;
    }
    return [{ environmentId: environment.id, name: environment.package.manifest.name, count: window.count, window: [window.low, window.high], next: [next.low, next.high], byLevel }];
  });
}
