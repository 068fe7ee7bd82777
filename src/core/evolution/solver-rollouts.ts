import type { EnvPackage, Episode, LanguageModel, Sandbox } from "../../spec/index.js";
import { playEpisode } from "../rollout/index.js";
import { deriveSeed } from "../selfplay/sampling.js";
import { solverPolicy } from "../selfplay/solver-policy.js";

/** Settings of Solver rollouts without the hint. */
export interface RolloutSettings {
  /** Rollouts to play. */
  readonly rollouts: number;
  /** Cap on turns per episode, on top of the environment's maxTurns. */
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly temperature: number;
}

/**
 * Plays `rollouts` Solver episodes of an environment without its hint, each
 * in a fresh sandbox session; episode and sampling seeds derive from
 * `seedBase`, so a rerun plays the same instances. Sandbox and model failures
 * end single episodes (recorded in `failure`), never the call.
 */
export async function playSolverRollouts(pkg: EnvPackage, model: LanguageModel, sandbox: Sandbox, settings: RolloutSettings, seedBase: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (let index = 0; index < settings.rollouts; index += 1) {
    const seed = deriveSeed(seedBase, "rollout", index) % 1_000_000;
    const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: null });
    if (opened.kind !== "ok") {
      episodes.push({ seed, initialObservation: "", turns: [], return: pkg.manifest.rewardRange[0], won: false, terminated: false, truncated: true, failure: { kind: opened.kind, message: opened.message } });
      continue;
    }
    try {
      const policy = solverPolicy(model, { hint: null, maxTokens: settings.maxTokens, temperature: settings.temperature, seed: deriveSeed(seedBase, "sampling", index) });
      episodes.push(await playEpisode(opened.value, pkg.manifest, seed, policy, { maxTurns: settings.maxTurns }));
    } finally {
      await opened.value.close();
    }
  }
  return episodes;
}
