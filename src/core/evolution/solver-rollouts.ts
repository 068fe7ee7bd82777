import type { EnvPackage, Episode, LanguageModel, Sandbox } from "../../spec/index.js";
import { episodesOf, playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import { deriveSeed } from "../selfplay/sampling.js";
import { solverPolicy, type SolverFormat } from "../selfplay/solver-policy.js";

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
  const program = { envSource: pkg.envSource, oracleSource: null };
  const jobs = Array.from({ length: settings.rollouts }, (_, index): EpisodeJob => ({
    program,
    manifest: pkg.manifest,
    seed: deriveSeed(seedBase, "rollout", index) % 1_000_000,
    policy: () =>
      solverPolicy(model, { hint: null, maxTokens: settings.maxTokens, temperature: settings.temperature, seed: deriveSeed(seedBase, "sampling", index), format: settings.format }),
    options: { maxTurns: settings.maxTurns },
  }));
  return episodesOf(jobs, await playEpisodeJobs(sandbox, jobs, { concurrency: settings.concurrency ?? 1 }));
}
