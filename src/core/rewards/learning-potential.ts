/**
 * Fast and slow exponential moving averages of one skill's pass rate.
 * Both start at the first observed pass rate.
 */
export interface SkillPassRateAverages {
  /** Fast EMA of the pass rate, in [0, 1]. */
  readonly fast: number;
  /** Slow EMA of the pass rate, in [0, 1]. */
  readonly slow: number;
  /** Pass rates folded in so far. */
  readonly observations: number;
}

/**
 * State of the learning-potential Designer reward: the pass-rate averages of
 * every skill seen so far, keyed by skill tag. A value passed in and returned
 * (never mutated, never global), so callers persist it with the run.
 */
export type LearningPotentialState = Readonly<Record<string, SkillPassRateAverages>>;

/** The state before any observation. */
export const EMPTY_LEARNING_POTENTIAL: LearningPotentialState = Object.freeze({});

/** Rates of the two moving averages: `ema ← ema + rate · (passRate − ema)`. */
export interface LearningPotentialParams {
  /** Step size of the fast EMA, in (0, 1]. @default 0.5 */
  readonly fastRate: number;
  /** Step size of the slow EMA, in (0, 1]; smaller than `fastRate`. @default 0.1 */
  readonly slowRate: number;
}

/** Default {@link LearningPotentialParams} (envforge's choice; no paper fixes them). */
export const DEFAULT_LEARNING_POTENTIAL: LearningPotentialParams = { fastRate: 0.5, slowRate: 0.1 };

/** Reward and next state of one learning-potential update. */
export interface LearningPotentialResult {
  /** Mean over the environment's skills of `|fast − slow|` after the update; 0 without skills. */
  readonly reward: number;
  /** The state with the environment's skills updated. */
  readonly state: LearningPotentialState;
}

/**
 * Learning-potential Designer reward: folds the environment's no-hint pass rate
 * into the fast and slow EMAs of each of its skills, then returns the mean over
 * those skills of `|fast EMA − slow EMA|` (bidirectional learning progress,
 * after Kanitscheider et al. 2021, "Multi-task curriculum learning in a complex,
 * visual, hard-exploration domain"; named in envforge issue 5). A skill seen for
 * the first time starts with both averages at the observed pass rate, so its
 * first reward is 0. Duplicate skill tags count once.
 *
 * @param state averages so far ({@link EMPTY_LEARNING_POTENTIAL} at the start of a run)
 * @param skills the environment's skill tags (`manifest.skills`)
 * @param passRate the environment's no-hint pass rate, in [0, 1]
 * @param params EMA rates; {@link DEFAULT_LEARNING_POTENTIAL} by default
 * @returns reward in [0, 1] and the next state; `state` itself is not modified
 */
export function learningPotential(
  state: LearningPotentialState,
  skills: readonly string[],
  passRate: number,
  params: LearningPotentialParams = DEFAULT_LEARNING_POTENTIAL,
): LearningPotentialResult {
  const unique = [...new Set(skills)];
  if (unique.length === 0) return { reward: 0, state };
  const next: Record<string, SkillPassRateAverages> = { ...state };
  let total = 0;
  for (const skill of unique) {
    const previous = state[skill];
    const averages: SkillPassRateAverages =
      previous === undefined
        ? { fast: passRate, slow: passRate, observations: 1 }
        : {
            fast: previous.fast + params.fastRate * (passRate - previous.fast),
            slow: previous.slow + params.slowRate * (passRate - previous.slow),
            observations: previous.observations + 1,
          };
    next[skill] = averages;
    total += Math.abs(averages.fast - averages.slow);
  }
  return { reward: total / unique.length, state: next };
}
