import { isDeclaredLevel, levelCount, type EnvironmentRecord, type EnvManifest, type EpisodeRecord, type Store } from "../../spec/index.js";
import { climbLadder, startLadder, type LadderRule, type LadderState } from "./ladder.js";

/**
 * Settings of the level controller (config `levels`): RLVE's adaptive
 * difficulty (section 2: a window `[l, h]` of levels per environment, problems
 * sampled uniformly in it, `h` raised once the accuracy at `h` reaches τ_acc
 * over enough samples, at most d levels kept).
 */
export interface LevelSettings {
  /**
   * `adaptive`: the RLVE window per environment; `static`: every episode at the
   * family's `difficulty.staticLevel` (the level of its size before levels; 0 when it names none).
   */
  readonly controller: "adaptive" | "static";
  /** τ_acc: accuracy at the window's top level that raises it. */
  readonly accuracyThreshold: number;
  /** Episodes without the hint at the top level before the controller decides. */
  readonly minSamples: number;
  /** d: most levels in the window. */
  readonly window: number;
}

/** The level controller's {@link LadderRule}. */
export function levelRule(settings: LevelSettings): LadderRule {
  return { threshold: settings.accuracyThreshold, minSamples: settings.minSamples, window: settings.window };
}

/** One environment's level window after the rounds seen so far. */
export interface LevelWindow extends LadderState {
  readonly environmentId: string;
  /** Declared levels of the family (the window never passes `count − 1`). */
  readonly count: number;
  /** Rounds whose episodes raised `high`, in order (the window's history). */
  readonly raisedAt: readonly number[];
}

/**
 * The level a `static` controller plays an environment at: the manifest's
 * `difficulty.staticLevel` when it is one of the declared levels, else 0.
 */
export function staticLevel(manifest: Pick<EnvManifest, "levels" | "difficulty">): number {
  const declared = manifest.difficulty["staticLevel"];
  return isDeclaredLevel(manifest, declared) ? declared : 0;
}

/**
 * The window an environment starts with: adaptive, `[c, c]` at the level `c` calibration admitted
 * it at (`calibrated`, clamped to the declared levels; 0 when absent); static, `[s, s]` at its
 * {@link staticLevel}.
 */
export function initialWindow(environmentId: string, manifest: Pick<EnvManifest, "levels" | "difficulty">, settings: LevelSettings, calibrated?: number): LevelWindow {
  const count = levelCount(manifest);
  const start = settings.controller === "static" ? staticLevel(manifest) : Math.min(count - 1, Math.max(0, Math.floor(calibrated ?? 0)));
  return { environmentId, count, ...startLadder(start), raisedAt: [] };
}

/**
 * The window after one round: the round's Solver episodes of the environment
 * without the hint (the policy's own accuracy; hint plays are easier by design)
 * at their recorded levels are one batch of the ladder ({@link climbLadder}
 * with {@link levelRule}). A static controller never moves.
 */
export function updateWindow(window: LevelWindow, round: number, episodes: readonly EpisodeRecord[], settings: LevelSettings): LevelWindow {
  if (settings.controller === "static") return window;
  const outcomes = episodes
    .filter((record) => record.environmentId === window.environmentId && record.role === "solver" && !record.hint)
    .map((record) => ({ rung: record.episode.level ?? 0, won: record.episode.won }));
  const step = climbLadder(window, outcomes, levelRule(settings), window.count - 1);
  return { ...window, ...step.state, raisedAt: step.promoted ? [...window.raisedAt, round] : window.raisedAt };
}

/** What {@link levelWindows} reads: the rounds and their episodes, in order. */
export interface LevelHistory {
  /** Rounds whose Solver phase is stored, ascending. */
  readonly rounds: readonly number[];
  readonly episodesOf: (round: number) => readonly EpisodeRecord[];
}

/**
 * Every environment's level window before round `before`, from the stored
 * episodes alone (so `--resume` continues the controller exactly): each
 * environment starts at {@link initialWindow} (at its calibrated level, when
 * calibration admitted it at one) and is updated by every earlier round in order.
 *
 * @param environments the environments to report, with their manifests
 */
export function levelWindows(
  environments: ReadonlyArray<{ readonly id: string; readonly manifest: Pick<EnvManifest, "levels" | "difficulty">; readonly calibratedLevel?: number }>,
  history: LevelHistory,
  before: number,
  settings: LevelSettings,
): Map<string, LevelWindow> {
  const windows = new Map(environments.map((environment) => [environment.id, initialWindow(environment.id, environment.manifest, settings, environment.calibratedLevel)]));
  for (const round of history.rounds) {
    if (round >= before) break;
    const episodes = history.episodesOf(round);
    for (const [id, window] of windows) windows.set(id, updateWindow(window, round, episodes, settings));
  }
  return windows;
}

/**
 * {@link levelWindows} of `environments` before round `before`, read from
 * `store` (every round whose Solver phase is stored).
 *
 * @throws StoreError when the store cannot be read
 */
export function storedLevelWindows(store: Store, environments: readonly EnvironmentRecord[], before: number, settings: LevelSettings): Map<string, LevelWindow> {
  const rounds = store
    .listRounds()
    .filter((record) => record.solverPhaseDone)
    .map((record) => record.round);
  return levelWindows(
    environments.map((environment) => ({
      id: environment.id,
      manifest: environment.package.manifest,
      ...(environment.scores?.level === undefined ? {} : { calibratedLevel: environment.scores.level }),
    })),
    { rounds, episodesOf: (round) => store.listEpisodes(round) },
    before,
    settings,
  );
}

/**
 * The level of one episode: uniform in the window `[low, high]` (RLVE), drawn
 * from `random` in [0, 1).
 */
export function sampleLevel(window: Pick<LevelWindow, "low" | "high">, random: number): number {
  const span = window.high - window.low + 1;
  return window.low + Math.min(span - 1, Math.floor(random * span));
}

/** A window as progress lines and reports print it: `[0, 2]` (or `[3]` for a single level). */
export function formatWindow(window: Pick<LevelWindow, "low" | "high">): string {
  return window.low === window.high ? `[${window.low}]` : `[${window.low}, ${window.high}]`;
}
