import { programOf, type EnvPackage, type Episode, type LanguageModel, type Sandbox, type Store } from "../../spec/index.js";
import type { FrontierProbe } from "../curriculum/index.js";
import { episodesOf, playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import { deriveSeed } from "./sampling.js";
import { solverPolicy, type SolverFormat } from "./solver-policy.js";

/** Settings of Solver rollouts without the hint. */
export interface RolloutSettings {
  /** Rollouts to play. */
  readonly rollouts: number;
  /** Cap on turns per episode, on top of the environment's maxTurns. */
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

/**
 * Plays `rollouts` Solver episodes of an environment without its hint,
 * `settings.concurrency` at a time ({@link playEpisodeJobs}: a lane keeps its
 * session across rollouts, a fresh one after a sandbox failure); episode and
 * sampling seeds derive from `seedBase`, so a rerun plays the same instances in
 * any completion order. Sandbox and model failures end single episodes
 * (recorded in `failure`), never the call.
 */
export async function playSolverRollouts(pkg: EnvPackage, model: LanguageModel, sandbox: Sandbox, settings: RolloutSettings, seedBase: string): Promise<Episode[]> {
  const program = programOf(pkg, { oracle: false, maxTurns: settings.maxTurns });
  const jobs = Array.from({ length: settings.rollouts }, (_, index): EpisodeJob => ({
    program,
    manifest: pkg.manifest,
    seed: deriveSeed(seedBase, "rollout", index) % 1_000_000,
    policy: () =>
      solverPolicy(model, { hint: null, maxTokens: settings.maxTokens, temperature: settings.temperature, seed: deriveSeed(seedBase, "sampling", index), format: settings.format, historyChars: settings.historyChars }),
    options: { maxTurns: settings.maxTurns },
  }));
  return episodesOf(jobs, await playEpisodeJobs(sandbox, jobs, { concurrency: settings.concurrency ?? 1 }));
}

/**
 * A {@link FrontierProbe} that plays `settings.rollouts` Solver rollouts
 * without the hint on the probed environment (seeds from
 * `seedBase/lineage/generation`). An environment id the store does not hold
 * counts as 0 wins of 0 rollouts (never released).
 */
export function solverProbe(store: Store, model: LanguageModel, sandbox: Sandbox, settings: RolloutSettings, seedBase: string): FrontierProbe {
  return async (environmentId, lineageId, generation) => {
    const pkg = store.listEnvironments().find((record) => record.id === environmentId)?.package;
    if (pkg === undefined) return { wins: 0, rollouts: 0 };
    const episodes = await playSolverRollouts(pkg, model, sandbox, settings, `${seedBase}/${lineageId}/${generation}`);
    return { wins: episodes.filter((episode) => episode.won).length, rollouts: episodes.length };
  };
}
