import { programOf, reject, type EnvPackage, type EnvSession, type Episode, type RejectVerdict, type SandboxOutcome, type Sandbox } from "../../spec/index.js";
import type { AdmissionGateName } from "../../config/index.js";
import { playEpisode, type Policy } from "../rollout/index.js";

/** Options of {@link withSession}. */
export interface SessionOptions {
  /**
   * Whether the sandbox checks every step reward against the manifest's
   * `rewardRange` (a reward outside it ends the episode with
   * `reward_out_of_range`). Only the executable gate turns it off, because it
   * checks each reward and the running return itself to say which. @default true
   */
  readonly checkRewardRange?: boolean;
  /** `env.py` to load instead of the candidate's (a probe variant of it, e.g. {@link reusedInstanceSource}). @default candidate.envSource */
  readonly envSource?: string;
}

/**
 * Opens a session of `candidate` (with its oracle when `withOracle`), runs
 * `use` on it and closes it. Every step reward is checked against the
 * declared `rewardRange` unless `options.checkRewardRange` is false. A load
 * that times out is tried once more (on a loaded machine a start can be
 * slow); a load failure is returned as the outcome, never thrown.
 */
export async function withSession<T>(
  sandbox: Sandbox,
  candidate: EnvPackage,
  withOracle: boolean,
  use: (session: EnvSession) => Promise<T>,
  options: SessionOptions = {},
): Promise<SandboxOutcome<T>> {
  // the shared program of a package (an OpenEnv package's or a terminal task's kind goes with it)
  const { rewardRange: _range, ...shared } = programOf(candidate, { oracle: withOracle });
  const program = {
    ...shared,
    envSource: options.envSource ?? candidate.envSource,
    ...(options.checkRewardRange === false ? {} : { rewardRange: candidate.manifest.rewardRange }),
  };
  let opened = await sandbox.open(program);
  if (opened.kind === "timeout") opened = await sandbox.open(program);
  if (opened.kind !== "ok") return opened;
  try {
    return { kind: "ok", value: await use(opened.value) };
  } finally {
    await opened.value.close();
  }
}

/** Seeds 0..count−1. */
export function seedRange(count: number): number[] {
  return Array.from({ length: count }, (_, seed) => seed);
}

/** Episode seeds of training are drawn below this bound (Solver plays, calibration, evolution rollouts). */
export const TRAINING_SEED_BOUND = 1_000_000;

/**
 * `count` seeds spread over the range training draws from, `[1000, TRAINING_SEED_BOUND)`:
 * one in each of `count` equal slices, at a fixed offset inside the slice (a multiple of 7919),
 * so large seeds are included and the residues modulo small numbers differ.
 * An environment that clamps or folds its seed (`min(seed, 100)`) serves one
 * instance on all of them.
 */
export function spreadSeeds(count: number): number[] {
  const low = 1000;
  const width = Math.floor((TRAINING_SEED_BOUND - low) / count);
  return Array.from({ length: count }, (_, index) => low + index * width + ((7919 * (index + 1)) % width));
}

/** Tolerance of reward-range checks, for float sums of step rewards. */
export const REWARD_RANGE_TOLERANCE = 1e-9;

/**
 * The `reward_out_of_range` reject of `gate` for the first episode that left the declared
 * `rewardRange`: the sandbox ended it because a step reward did, or its running return (the
 * unclipped sum of its step rewards) did through steps that are each in range, e.g. two steps of
 * 0.6 in a [0, 1] task (the clipped return hides it); null when none did. The evidence names the
 * seed and the 1-based turn, and for a running return its `total`.
 */
export function rewardRangeViolation(gate: AdmissionGateName, episodes: readonly Episode[], candidate: EnvPackage): RejectVerdict | null {
  const [low, high] = candidate.manifest.rewardRange;
  for (const episode of episodes) {
    const evidence = (turn: number) => ({ seed: episode.seed, turn, rewardRange: [low, high], actions: episode.turns.slice(0, turn).map((played) => played.action.slice(0, 100)) });
    if (episode.failure?.kind === "reward_out_of_range") {
      return reject(gate, "reward_out_of_range", `seed ${episode.seed}, turn ${episode.turns.length + 1}: ${episode.failure.message}`, evidence(episode.turns.length + 1));
    }
    let total = 0;
    for (const [index, played] of episode.turns.entries()) {
      total += played.reward;
      if (total < low - REWARD_RANGE_TOLERANCE || total > high + REWARD_RANGE_TOLERANCE) {
        return reject(gate, "reward_out_of_range", `seed ${episode.seed}, turn ${index + 1}: the running return ${total} left the declared range [${low}, ${high}]`, {
          ...evidence(index + 1),
          total,
        });
      }
    }
  }
  return null;
}

/**
 * The gate's `invalid_step_result` verdict for the first episode that the sandbox ended with a
 * `protocol_violation` (a reward that is not a finite number, such as NaN or `10**400`, or a step
 * result of the wrong shape) on a path the executable gate's probes did not take, e.g. a wrong
 * but readable answer; null when there is none.
 */
export function invalidStepResult(gate: AdmissionGateName, episodes: readonly Episode[]): RejectVerdict | null {
  const failed = episodes.find((episode) => episode.failure?.kind === "protocol_violation");
  if (failed?.failure === undefined) return null;
  return reject(gate, "invalid_step_result", `seed ${failed.seed}, turn ${failed.turns.length + 1}: ${failed.failure.message}`, {
    seed: failed.seed,
    turn: failed.turns.length + 1,
    actions: failed.turns.map((turn) => turn.action.slice(0, 100)),
  });
}

/**
 * Plays one episode per seed in a session, in order, with a policy made per
 * seed. After a sandbox failure the remaining seeds are not played (the failed
 * episode is the last one returned): a gate's verdict needs only the first failure.
 */
export async function playSeeds(
  session: EnvSession,
  candidate: EnvPackage,
  seeds: readonly number[],
  policyFor: (seed: number) => Policy,
  maxTurns?: number,
): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (const seed of seeds) {
    const episode = await playEpisode(session, candidate.manifest, seed, policyFor(seed), maxTurns === undefined ? {} : { maxTurns });
    episodes.push(episode);
    if (episode.failure !== undefined && episode.failure.kind !== "policy_error") break;
  }
  return episodes;
}

/** A policy that sends `actions` in turn, cycling. */
export function scriptedPolicy(name: string, actions: readonly string[]): Policy {
  return {
    name,
    async act({ turns }) {
      return { text: actions[turns.length % actions.length] ?? "" };
    },
  };
}

/** Short per-episode summary kept as evidence. */
export function episodeSummary(episodes: readonly Episode[]) {
  return episodes.map((episode) => ({
    seed: episode.seed,
    return: episode.return,
    won: episode.won,
    turns: episode.turns.length,
    ...(episode.failure ? { failure: `${episode.failure.kind}: ${episode.failure.message.slice(0, 300)}` } : {}),
  }));
}
