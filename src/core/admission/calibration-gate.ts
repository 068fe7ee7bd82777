import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { playEpisode } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";

/** First seed of calibration plays (play p uses seed `CALIBRATION_SEED_BASE + p`, apart from the probe seeds). */
export const CALIBRATION_SEED_BASE = 10_000;

/**
 * Gate 11, calibration (EvoEnv: solver-relative, 0 < pass rate < 1 over 8
 * plays): the Solver plays `calibrationPlays` episodes without the hint; when
 * the pass rate lies within `edgeMargin` of a band edge and
 * `secondStagePlays` > 0, it plays that many more and the rate is taken over
 * all plays. Admitted when `bandLow < rate < bandHigh`. A play the sandbox
 * cuts short counts as a loss; after it the next play gets a fresh session.
 * Reason codes: `too_hard` (rate ≤ bandLow), `too_easy` (rate ≥ bandHigh),
 * `model_missing`, `load_failed`.
 */
export function calibrationGate(): AdmissionGate {
  return { name: "calibration", usesModel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const { solver, settings } = context;
  if (solver === undefined) return reject("calibration", "model_missing", "calibration needs a Solver (a language model)");
  const results: boolean[] = [];
  const play = async (count: number): Promise<Verdict | null> => {
    let opened = await context.sandbox.open({ envSource: candidate.envSource, oracleSource: null });
    try {
      for (let index = 0; index < count; index += 1) {
        if (opened.kind !== "ok") opened = await context.sandbox.open({ envSource: candidate.envSource, oracleSource: null });
        if (opened.kind !== "ok") return reject("calibration", "load_failed", `env.py failed to load: ${opened.message}`, { kind: opened.kind });
        const number = results.length;
        const episode = await playEpisode(opened.value, candidate.manifest, CALIBRATION_SEED_BASE + number, solver.policy(number), { maxTurns: solver.maxTurns });
        results.push(episode.won);
        if (episode.failure !== undefined && episode.failure.kind !== "policy_error") {
          await opened.value.close();
          opened = { kind: episode.failure.kind, message: episode.failure.message };
        }
      }
      return null;
    } finally {
      if (opened.kind === "ok") await opened.value.close();
    }
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
