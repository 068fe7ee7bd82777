import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { rewardRangeViolation } from "./probe-episodes.js";

/** First seed of calibration plays (play p uses seed `CALIBRATION_SEED_BASE + p`, apart from the probe seeds). */
export const CALIBRATION_SEED_BASE = 10_000;

/**
 * Gate 11, calibration (EvoEnv: solver-relative, 0 < pass rate < 1 over 8
 * plays): the Solver plays `calibrationPlays` episodes without the hint; when
 * the pass rate lies within `edgeMargin` of a band edge and
 * `secondStagePlays` > 0, it plays that many more and the rate is taken over
 * all plays. Admitted when `bandLow < rate < bandHigh`. Plays run
 * `solver.concurrency` at a time (seeds by play number, so the verdict does
 * not depend on completion order). A play the sandbox cuts short counts as a
 * loss; the next play gets a fresh session. A stage is played whole before its
 * plays are checked in order: the first that could not load (also a fresh
 * session after a crash) rejects `load_failed`, the first out of range
 * `reward_out_of_range`.
 * Every step reward must stay inside `rewardRange`.
 * Reason codes: `too_hard` (rate ≤ bandLow), `too_easy` (rate ≥ bandHigh),
 * `reward_out_of_range`, `model_missing`, `load_failed`.
 */
export function calibrationGate(): AdmissionGate {
  return { name: "calibration", usesModel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const { solver, settings } = context;
  if (solver === undefined) return reject("calibration", "model_missing", "calibration needs a Solver (a language model)");
  const results: boolean[] = [];
  const program = { envSource: candidate.envSource, oracleSource: null, rewardRange: candidate.manifest.rewardRange };
  // one stage's plays run solver.concurrency at a time; a play the sandbox cuts short gets a fresh session for the next
  const play = async (count: number): Promise<Verdict | null> => {
    const jobs = Array.from({ length: count }, (_, offset): EpisodeJob => {
      const number = results.length + offset;
      return { program, manifest: candidate.manifest, seed: CALIBRATION_SEED_BASE + number, policy: () => solver.policy(number), options: { maxTurns: solver.maxTurns } };
    });
    const outcomes = await playEpisodeJobs(context.sandbox, jobs, { concurrency: solver.concurrency ?? 1 });
    for (const outcome of outcomes) {
      if (outcome.kind !== "ok") return reject("calibration", "load_failed", `env.py failed to load: ${outcome.message}`, { kind: outcome.kind });
      results.push(outcome.value.won);
      const outOfRange = rewardRangeViolation("calibration", [outcome.value], candidate);
      if (outOfRange !== null) return outOfRange;
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
  const passRate = rate();
  const evidence = { plays: results.length, wins: results.filter(Boolean).length, passRate, firstStageRate: first, secondStage: results.length > settings.calibrationPlays };
  if (passRate <= settings.bandLow) return reject("calibration", "too_hard", `the Solver's pass rate ${passRate.toFixed(2)} is not above ${settings.bandLow}`, evidence);
  if (passRate >= settings.bandHigh) return reject("calibration", "too_easy", `the Solver's pass rate ${passRate.toFixed(2)} is not below ${settings.bandHigh}`, evidence);
  return pass("calibration", evidence);
}
