import type { EnvProgram, Sandbox, EnvSession } from "../../spec/index.js";

/** How one probe episode (one level, one seed) ended. */
export type LevelProbeOutcome = "won" | "lost" | "reset_failed" | "oracle_failed" | "step_failed" | "load_failed";

/** The first probe episode that did not end in an oracle win, which ends the declared levels. */
export interface LevelProbeStop {
  readonly level: number;
  readonly seed: number;
  readonly outcome: Exclude<LevelProbeOutcome, "won">;
  readonly message: string;
}

/** What {@link probeLevels} found. */
export interface LevelProbeResult {
  /** Levels 0..n−1 at which every probe seed reset and the oracle won (0 when level 0 failed). */
  readonly levelsWon: number;
  /** Whether `reset` worked at level 0 for every probe seed. */
  readonly resetsAtLevelZero: boolean;
  /** The first observation at level 0 of the first probe seed, or null. */
  readonly example: string | null;
  /** `info.rlve_parameter` of the step at level 0 and at the last level won (first probe seed). */
  readonly firstParameters: Readonly<Record<string, unknown>> | null;
  readonly lastParameters: Readonly<Record<string, unknown>> | null;
  /** Why the probe stopped below the levels asked for; null when every level was won. */
  readonly stop: LevelProbeStop | null;
}

/** Options of {@link probeLevels}. */
export interface LevelProbeOptions {
  /** Levels tried, 0..levels−1, stopping at the first that fails. */
  readonly levels: number;
  /** Episode seeds per level. @default [0, 1] */
  readonly seeds?: readonly number[];
  /** Step reward at or above which an episode is won. @default 1 */
  readonly passThreshold?: number;
}

function parametersOf(info: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | null {
  const value = info["rlve_parameter"];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Plays a single-turn levelled program in the sandbox level by level: at each level, for each
 * probe seed, `reset(seed, level)`, the oracle's action, one `step`; it stops at the first
 * episode that fails or that the oracle does not win. The importer declares the levels won
 * (at least one), so that every declared level resets within the sandbox's limits and has a
 * working oracle on the probe seeds.
 */
export async function probeLevels(sandbox: Sandbox, program: EnvProgram, options: LevelProbeOptions): Promise<LevelProbeResult> {
  const seeds = options.seeds ?? [0, 1];
  const passThreshold = options.passThreshold ?? 1;
  const opened = await sandbox.open(program);
  if (opened.kind !== "ok") {
    return { levelsWon: 0, resetsAtLevelZero: false, example: null, firstParameters: null, lastParameters: null, stop: { level: 0, seed: seeds[0] ?? 0, outcome: "load_failed", message: `${opened.kind}: ${opened.message}` } };
  }
  const session: EnvSession = opened.value;
  let example: string | null = null;
  let firstParameters: Readonly<Record<string, unknown>> | null = null;
  let lastParameters: Readonly<Record<string, unknown>> | null = null;
  let resetsAtLevelZero = true;
  try {
    for (let level = 0; level < options.levels; level += 1) {
      for (const [index, seed] of seeds.entries()) {
        const stop = (outcome: LevelProbeStop["outcome"], message: string): LevelProbeResult => ({
          levelsWon: level,
          resetsAtLevelZero,
          example,
          firstParameters,
          lastParameters,
          stop: { level, seed, outcome, message: message.slice(0, 500) },
        });
        const reset = await session.reset(seed, level);
        if (reset.kind !== "ok") {
          if (level === 0) resetsAtLevelZero = false;
          return stop("reset_failed", `${reset.kind}: ${reset.message}`);
        }
        if (level === 0 && index === 0) example = reset.value;
        const action = await session.oracleAction(reset.value);
        if (action.kind !== "ok") return stop("oracle_failed", `${action.kind}: ${action.message}`);
        const step = await session.step(action.value);
        if (step.kind !== "ok") return stop("step_failed", `${step.kind}: ${step.message}`);
        if (!(step.value.reward >= passThreshold)) return stop("lost", `the oracle's reply ${JSON.stringify(action.value).slice(0, 120)} scored ${step.value.reward}`);
        if (index === 0) {
          if (level === 0) firstParameters = parametersOf(step.value.info);
          lastParameters = parametersOf(step.value.info);
        }
      }
    }
    return { levelsWon: options.levels, resetsAtLevelZero, example, firstParameters, lastParameters, stop: null };
  } finally {
    await session.close();
  }
}
