import { levelCount, pass, programOf, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { rewardRangeViolation } from "./probe-episodes.js";

/** First seed of calibration plays (play p uses seed `CALIBRATION_SEED_BASE + p`, apart from the probe seeds). */
export const CALIBRATION_SEED_BASE = 10_000;

/** The Solver's calibration plays at one level. */
export interface LevelProbe {
  readonly level: number;
  readonly plays: number;
  readonly wins: number;
  readonly passRate: number;
  readonly firstStageRate: number;
  readonly secondStage: boolean;
}

/**
 * Gate 12, calibration (EvoEnv: solver-relative, 0 < pass rate < 1 over 8
 * plays): the Solver plays `calibrationPlays` episodes without the hint; when
 * the pass rate lies within `edgeMargin` of a band edge and
 * `secondStagePlays` > 0, it plays that many more and the rate is taken over
 * all plays. Admitted when `bandLow < rate < bandHigh`.
 *
 * A levelled family is not rejected for one level: calibration searches its
 * declared levels for one in the band (difficulty rises with the level, which
 * the levels gate checked): a binary search from the whole range, a level too
 * hard sending the search below it and a level too easy above it, so at most
 * ⌈log2(levels + 1)⌉ levels are probed. It admits the family at the level
 * found (evidence `level`, and `probes`, one {@link LevelProbe} per level
 * played); it rejects only when no level falls in the band (`too_hard` when
 * even level 0 is, `too_easy` when even the top level is, either otherwise by
 * the nearest probe below or above).
 *
 * Plays run `solver.concurrency` at a time (seeds by play number, so the
 * verdict does not depend on completion order). A play the sandbox cuts short
 * counts as a loss; the next play gets a fresh session. A stage is played
 * whole before its plays are checked in order: the first that could not load
 * (also a fresh session after a crash) rejects `load_failed`, the first out of
 * range `reward_out_of_range`. Every step reward and each play's running return must stay inside `rewardRange`.
 * Reason codes: `too_hard` (rate ≤ bandLow), `too_easy` (rate ≥ bandHigh),
 * `reward_out_of_range`, `model_missing`, `load_failed`.
 */
export function calibrationGate(): AdmissionGate {
  return { name: "calibration", usesModel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  if (context.solver === undefined) return reject("calibration", "model_missing", "calibration needs a Solver (a language model)");
  const levelled = candidate.manifest.levels !== undefined;
  const probes: LevelProbe[] = [];
  let low = 0;
  let high = levelCount(candidate.manifest) - 1;
  // play numbers continue over the levels probed, so no two calibration plays share a seed
  let played = 0;
  while (low <= high) {
    const level = levelled ? Math.floor((low + high) / 2) : 0;
    const probe = await probeLevel(candidate, context, levelled ? level : undefined, played);
    if ("status" in probe) return probe;
    played += probe.plays;
    probes.push(probe);
    const { bandLow, bandHigh } = context.settings;
    if (probe.passRate <= bandLow) high = level - 1;
    else if (probe.passRate >= bandHigh) low = level + 1;
    else return pass("calibration", levelled ? { ...withoutLevel(probe), level, probes } : withoutLevel(probe));
  }
  const last = probes.at(-1) as LevelProbe;
  const tooHard = last.passRate <= context.settings.bandLow;
  const where = levelled ? ` at every level probed (${probes.map((probe) => `level ${probe.level}: ${probe.wins}/${probe.plays}`).join(", ")})` : "";
  const evidence = levelled ? { ...withoutLevel(last), probes } : withoutLevel(last);
  return tooHard
    ? reject("calibration", "too_hard", `the Solver's pass rate ${last.passRate.toFixed(2)} is not above ${context.settings.bandLow}${where}`, evidence)
    : reject("calibration", "too_easy", `the Solver's pass rate ${last.passRate.toFixed(2)} is not below ${context.settings.bandHigh}${where}`, evidence);
}

/** A probe's evidence fields as the one-level gate has always reported them. */
function withoutLevel(probe: LevelProbe): Record<string, unknown> {
  const { level: _level, ...rest } = probe;
  return rest;
}

/**
 * The calibration plays at one level (undefined: a family of one level): the
 * first stage, and the second when the first rate is near a band edge; play
 * numbers start at `firstPlay`.
 */
async function probeLevel(candidate: EnvPackage, context: AdmissionContext, level: number | undefined, firstPlay: number): Promise<LevelProbe | Verdict> {
  const { settings } = context;
  const solver = context.solver as NonNullable<AdmissionContext["solver"]>;
  const results: boolean[] = [];
  const program = programOf(candidate, { oracle: false, maxTurns: solver.maxTurns });
  const at = level === undefined ? "" : `level ${level}: `;
  // one stage's plays run solver.concurrency at a time; a play the sandbox cuts short gets a fresh session for the next
  const play = async (count: number): Promise<Verdict | null> => {
    const jobs = Array.from({ length: count }, (_, offset): EpisodeJob => {
      const number = firstPlay + results.length + offset;
      return {
        program,
        manifest: candidate.manifest,
        seed: CALIBRATION_SEED_BASE + number,
        policy: () => solver.policy(number),
        options: { maxTurns: solver.maxTurns, ...(level === undefined ? {} : { level }) },
      };
    });
    const outcomes = await playEpisodeJobs(context.sandbox, jobs, { concurrency: solver.concurrency ?? 1 });
    for (const outcome of outcomes) {
      if (outcome.kind !== "ok") return reject("calibration", "load_failed", `${at}env.py failed to load: ${outcome.message}`, { kind: outcome.kind, ...(level === undefined ? {} : { level }) });
      results.push(outcome.value.won);
      const outOfRange = rewardRangeViolation("calibration", [outcome.value], candidate);
      if (outOfRange !== null) return level === undefined ? outOfRange : { ...outOfRange, message: `${at}${outOfRange.message}` };
    }
    return null;
  };
  const rate = () => results.filter(Boolean).length / results.length;
  const failed = await play(settings.calibrationPlays);
  if (failed) return failed;
  const first = rate();
  const nearEdge = Math.abs(first - settings.bandLow) <= settings.edgeMargin || Math.abs(first - settings.bandHigh) <= settings.edgeMargin;
  if (nearEdge && settings.secondStagePlays > 0) {
    const again = await play(settings.secondStagePlays);
    if (again) return again;
  }
  return {
    level: level ?? 0,
    plays: results.length,
    wins: results.filter(Boolean).length,
    passRate: rate(),
    firstStageRate: first,
    secondStage: results.length > settings.calibrationPlays,
  };
}

/**
 * The level a passed calibration verdict admitted a levelled family at
 * (evidence `level`), or undefined for a family of one level or no such verdict.
 */
export function calibratedLevel(verdicts: readonly Verdict[]): number | undefined {
  const verdict = verdicts.find((entry) => entry.gate === "calibration" && entry.status === "pass");
  const level = verdict?.evidence?.["level"];
  return typeof level === "number" ? level : undefined;
}
