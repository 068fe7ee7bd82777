import { isDeclaredLevel, levelCount, pass, reject, type EnvPackage, type Episode, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { levelView } from "./level-views.js";
import { playOracle } from "./oracle-gate.js";

/** The off-policy difficulty of one level, from the oracle's episodes on the gate seeds. */
export interface LevelDifficulty {
  readonly level: number;
  /** Mean turns the oracle needs to win (the horizon). */
  readonly oracleTurns: number;
  /** Mean characters of the first observation (the instance as the agent sees it). */
  readonly observationChars: number;
  /** `oracleTurns × observationChars`: grows with the horizon and with the instance. */
  readonly difficulty: number;
}

/**
 * The {@link LevelDifficulty} of oracle episodes played at one level (their
 * mean horizon and first-observation size, and D, their product).
 */
export function levelDifficulty(level: number, episodes: readonly Episode[]): LevelDifficulty {
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((total, value) => total + value, 0) / values.length);
  const oracleTurns = mean(episodes.map((episode) => episode.turns.length));
  const observationChars = mean(episodes.map((episode) => episode.initialObservation.length));
  return { level, oracleTurns, observationChars, difficulty: oracleTurns * observationChars };
}

/**
 * Gate 8, levels: the declared levels of a family are real and ordered. (The
 * mechanical gates before it already checked every level on its own:
 * executable, deterministic per (seed, level), the oracle wins, rewards in
 * range, negative controls fail, the hint does not leak.) From the oracle's
 * episodes at each level on seeds 0..n−1 (shared with the oracle gate): two
 * adjacent levels must not give the same first observation on every seed, and
 * the off-policy difficulty D = oracle turns × first-observation characters
 * (mean over the seeds; envforge's measure: the horizon times the instance
 * size) must not fall by more than `levelTolerance` from one level to the next,
 * and must be higher at the top level than at level 0. A family of one level
 * passes. Reason codes: `levels_identical` (level k and k+1 build the same
 * instances), `difficulty_inverted` (level k+1 is easier than level k),
 * `difficulty_flat` (the top level is no harder than level 0),
 * `static_level_out_of_range` (`difficulty.staticLevel`, the level the static
 * controller plays, is not a declared level), `load_failed`.
 */
export function levelsGate(): AdmissionGate {
  return { name: "levels", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const count = levelCount(candidate.manifest);
  const declared = candidate.manifest.difficulty["staticLevel"];
  if (declared !== undefined && !isDeclaredLevel(candidate.manifest, declared)) {
    return reject("levels", "static_level_out_of_range", `difficulty.staticLevel ${JSON.stringify(declared)} is not one of the declared levels 0..${count - 1}`, { staticLevel: declared, levels: count });
  }
  if (candidate.manifest.levels === undefined || count === 1) return pass("levels", { levels: count });
  const played: Episode[][] = [];
  for (let level = 0; level < count; level += 1) {
    const outcome = await playOracle(levelView(candidate, level), context);
    if (outcome.kind !== "ok") return reject("levels", "load_failed", `level ${level} of ${count}: env.py or oracle.py failed to load: ${outcome.message}`, { level, kind: outcome.kind });
    played.push(outcome.value);
  }
  const measures = played.map((episodes, level) => levelDifficulty(level, episodes));
  const evidence = { levels: count, difficulty: measures.map((measure) => ({ ...measure, difficulty: Math.round(measure.difficulty * 10) / 10 })) };
  for (let level = 0; level + 1 < count; level += 1) {
    const lower = played[level] as Episode[];
    const upper = played[level + 1] as Episode[];
    if (lower.length > 0 && lower.every((episode, index) => episode.initialObservation === upper[index]?.initialObservation)) {
      return reject("levels", "levels_identical", `levels ${level} and ${level + 1} of ${count} give the same first observation on all ${lower.length} seeds: the level changes nothing`, {
        ...evidence,
        level: level + 1,
      });
    }
  }
  const tolerance = context.settings.levelTolerance;
  for (let level = 0; level + 1 < count; level += 1) {
    const lower = measures[level] as LevelDifficulty;
    const upper = measures[level + 1] as LevelDifficulty;
    if (upper.difficulty < lower.difficulty * (1 - tolerance)) {
      return reject(
        "levels",
        "difficulty_inverted",
        `level ${level + 1} of ${count} is easier than level ${level}: D = oracle turns × observation characters fell from ${lower.difficulty.toFixed(1)} (${lower.oracleTurns.toFixed(1)} turns × ${lower.observationChars.toFixed(0)} characters) to ${upper.difficulty.toFixed(1)} (${upper.oracleTurns.toFixed(1)} × ${upper.observationChars.toFixed(0)})`,
        { ...evidence, level: level + 1 },
      );
    }
  }
  const bottom = measures[0] as LevelDifficulty;
  const top = measures[count - 1] as LevelDifficulty;
  if (top.difficulty <= bottom.difficulty) {
    return reject("levels", "difficulty_flat", `the top level ${count - 1} is no harder than level 0: D = ${top.difficulty.toFixed(1)} against ${bottom.difficulty.toFixed(1)} (oracle turns × observation characters)`, {
      ...evidence,
      level: count - 1,
    });
  }
  return pass("levels", evidence);
}
