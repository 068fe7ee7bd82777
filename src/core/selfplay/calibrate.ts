import { programOf, type EnvironmentScores, type EnvPackage, type Episode, type LanguageModel, type Sandbox } from "../../spec/index.js";
import { sampleLevel, type LevelWindow } from "../curriculum/index.js";
import { hintRegret, mean } from "../rewards/index.js";
import { episodesOf, playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import { deriveSeed } from "./sampling.js";
import { solverPolicy, type SolverFormat } from "./solver-policy.js";

/** Settings of Solver plays. */
export interface SolverPlaySettings {
  /** Plays per hint condition. */
  readonly plays: number;
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly temperature: number;
  /** Episodes in flight at once (`solver.concurrency`). @default 1 */
  readonly concurrency?: number;
  /** How the Solver replies (`solver.format`). @default "action" */
  readonly format?: SolverFormat;
  /** Characters of earlier turns in the Solver's prompt (`solver.historyChars`). @default DEFAULT_HISTORY_CHARS */
  readonly historyChars?: number;
}

/** Episodes of one environment under both hint conditions. */
export interface HintPlays {
  readonly withoutHint: readonly Episode[];
  readonly withHint: readonly Episode[];
}

/**
 * The episodes of {@link playWithAndWithoutHint} as jobs: `plays` without the hint, then
 * `plays` with it, episode and sampling seeds derived from `seedBase` (so a rerun plays the
 * same instances, in any completion order). In a levelled family each play's level is drawn
 * uniformly from `window` (RLVE; the same level for play p with and without the hint, so the
 * two conditions of SPADE's regret compare like with like), level 0 without a window.
 */
export function hintPlayJobs(pkg: EnvPackage, model: LanguageModel, settings: SolverPlaySettings, seedBase: string, window?: Pick<LevelWindow, "low" | "high">): EpisodeJob[] {
  const program = programOf(pkg, { oracle: false, maxTurns: settings.maxTurns });
  return [false, true].flatMap((hint) =>
    Array.from({ length: settings.plays }, (_, play): EpisodeJob => ({
      program,
      manifest: pkg.manifest,
      seed: deriveSeed(seedBase, hint ? "hint" : "no-hint", play) % 1_000_000,
      policy: () =>
        solverPolicy(model, {
          hint: hint ? pkg.manifest.hint : null,
          maxTokens: settings.maxTokens,
          temperature: settings.temperature,
          seed: deriveSeed(seedBase, "sampling", hint ? 1 : 0, play),
          format: settings.format,
          historyChars: settings.historyChars,
        }),
      options: { maxTurns: settings.maxTurns, ...levelOption(pkg, window, seedBase, play) },
    })),
  );
}

/** The `level` option of play `play`: uniform in `window` for a levelled family, none otherwise. */
function levelOption(pkg: EnvPackage, window: Pick<LevelWindow, "low" | "high"> | undefined, seedBase: string, play: number): { level?: number } {
  if (pkg.manifest.levels === undefined) return {};
  if (window === undefined) return { level: 0 };
  return { level: sampleLevel(window, deriveSeed(seedBase, "level", play) / 2 ** 32) };
}

/** Splits the episodes of {@link hintPlayJobs} (in job order) into the two conditions. */
export function splitHintPlays(episodes: readonly Episode[]): HintPlays {
  const half = episodes.length / 2;
  return { withoutHint: episodes.slice(0, half), withHint: episodes.slice(half) };
}

/**
 * Plays an environment `plays` times without the hint and `plays` times with it
 * (SPADE: both conditions at the same policy version), `settings.concurrency` episodes at
 * a time. Seeds derive from `seedBase`, so a rerun plays the same instances. Sandbox and
 * model failures end single episodes (recorded in `failure`), never the call; after a
 * sandbox failure the next episode gets a fresh session ({@link playEpisodeJobs}). In a
 * levelled family the plays' levels are drawn from `window` (see {@link hintPlayJobs}).
 */
export async function playWithAndWithoutHint(
  pkg: EnvPackage,
  model: LanguageModel,
  sandbox: Sandbox,
  settings: SolverPlaySettings,
  seedBase: string,
  window?: Pick<LevelWindow, "low" | "high">,
): Promise<HintPlays> {
  const jobs = hintPlayJobs(pkg, model, settings, seedBase, window);
  const outcomes = await playEpisodeJobs(sandbox, jobs, { concurrency: settings.concurrency ?? 1 });
  return splitHintPlays(episodesOf(jobs, outcomes));
}

/** Calibration scores without the Designer reward (which the reward mode decides). */
export type HintPlayScores = Omit<EnvironmentScores, "designerReward">;

/**
 * Calibration scores from hint plays (SPADE): win rates and mean returns per
 * condition, and hint regret = max(0, mean return with hint − mean return without).
 */
export function scoreHintPlays(plays: HintPlays): HintPlayScores {
  const returnsWithout = plays.withoutHint.map((episode) => episode.return);
  const returnsWith = plays.withHint.map((episode) => episode.return);
  const winRateNoHint = rate(plays.withoutHint);
  const regret = hintRegret(returnsWith, returnsWithout);
  return {
    plays: plays.withoutHint.length,
    winRateNoHint,
    winRateHint: rate(plays.withHint),
    meanReturnNoHint: returnsWithout.length > 0 ? mean(returnsWithout) : 0,
    meanReturnHint: returnsWith.length > 0 ? mean(returnsWith) : 0,
    regret,
  };
}

function rate(episodes: readonly Episode[]): number {
  return episodes.length === 0 ? 0 : episodes.filter((episode) => episode.won).length / episodes.length;
}
