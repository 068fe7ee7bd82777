import type { EnvironmentScores, EnvPackage, Episode, LanguageModel, Sandbox } from "../../spec/index.js";
import { hintRegret, mean } from "../rewards/index.js";
import { playEpisode } from "../rollout/index.js";
import { deriveSeed } from "./sampling.js";
import { solverPolicy } from "./solver-policy.js";

/** Settings of Solver plays. */
export interface SolverPlaySettings {
  /** Plays per hint condition. */
  readonly plays: number;
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly temperature: number;
}

/** Episodes of one environment under both hint conditions. */
export interface HintPlays {
  readonly withoutHint: readonly Episode[];
  readonly withHint: readonly Episode[];
}

/**
 * Plays an environment `plays` times without the hint and `plays` times with it
 * (SPADE: both conditions at the same policy version). Seeds derive from
 * `seedBase`, so a rerun plays the same instances. Sandbox and model failures
 * end single episodes (recorded in `failure`), never the call; after a sandbox
 * failure the next episode gets a fresh session.
 */
export async function playWithAndWithoutHint(
  pkg: EnvPackage,
  model: LanguageModel,
  sandbox: Sandbox,
  settings: SolverPlaySettings,
  seedBase: string,
): Promise<HintPlays> {
  const withoutHint: Episode[] = [];
  const withHint: Episode[] = [];
  const program = { envSource: pkg.envSource, oracleSource: null };
  let opened = await sandbox.open(program);
  for (const hint of [false, true]) {
    for (let play = 0; play < settings.plays; play += 1) {
      const seed = deriveSeed(seedBase, hint ? "hint" : "no-hint", play) % 1_000_000;
      if (opened.kind !== "ok") {
        // a failure of the previous episode killed its session: start a fresh one
        opened = await sandbox.open(program);
      }
      let episode: Episode;
      if (opened.kind !== "ok") {
        episode = { seed, initialObservation: "", turns: [], return: pkg.manifest.rewardRange[0], won: false, terminated: false, truncated: true, failure: { kind: opened.kind, message: opened.message } };
      } else {
        const policy = solverPolicy(model, {
          hint: hint ? pkg.manifest.hint : null,
          maxTokens: settings.maxTokens,
          temperature: settings.temperature,
          seed: deriveSeed(seedBase, "sampling", hint ? 1 : 0, play),
        });
        episode = await playEpisode(opened.value, pkg.manifest, seed, policy, { maxTurns: settings.maxTurns });
        if (episode.failure !== undefined && episode.failure.kind !== "policy_error") {
          await opened.value.close();
          opened = { kind: episode.failure.kind, message: episode.failure.message };
        }
      }
      (hint ? withHint : withoutHint).push(episode);
    }
  }
  if (opened.kind === "ok") await opened.value.close();
  return { withoutHint, withHint };
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
