import type { Episode, SandboxFailureKind } from "../../spec/index.js";

/**
 * Penalties of the Solver reward. Both are added (they are ≤ 0 by convention)
 * after the episode return has been clipped to the environment's declared range,
 * so a penalised episode scores below an honest loss and the two stay apart.
 * Configurable through the `reward` config block.
 */
export interface SolverRewardParams {
  /** Added once per invalid action (a turn the environment marked with `info.invalid_action`). @default -0.02 */
  readonly invalidActionPenalty: number;
  /**
   * Added once when the sandbox cut the episode short (timeout, CPU or memory
   * limit, crash, protocol violation, output limit, forbidden operation).
   * Policy errors (`failure.kind === "policy_error"`) are not sandbox cuts. @default 0
   */
  readonly sandboxCutPenalty: number;
}

/**
 * Default {@link SolverRewardParams}, the config's defaults: −0.02 per invalid action
 * and no sandbox penalty.
 */
export const DEFAULT_SOLVER_REWARD: SolverRewardParams = {
  invalidActionPenalty: -0.02,
  sandboxCutPenalty: 0,
};

/** What {@link solverReward} needs to score one episode. */
export interface SolverRewardInput {
  /** Step rewards in play order (environment units). */
  readonly stepRewards: readonly number[];
  /** The environment's inclusive `[low, high]` return range (`manifest.rewardRange`). */
  readonly rewardRange: readonly [number, number];
  /** Actions the environment refused as invalid (`Turn.invalidAction`). @default 0 */
  readonly invalidActions?: number;
  /** Why the episode was cut short, if it was (`Episode.failure`). */
  readonly failure?: Episode["failure"];
}

/** The Solver reward of one episode and its parts. */
export interface SolverReward {
  /** `clippedReturn + penalty`: the number that enters the advantage. */
  readonly reward: number;
  /** Sum of step rewards clipped to the declared range. */
  readonly clippedReturn: number;
  /** Sum of the penalties applied (≤ 0 with non-positive params). */
  readonly penalty: number;
  /** Whether the sandbox cut the episode (the sandbox penalty applied). */
  readonly cutBySandbox: boolean;
}

const SANDBOX_FAILURE_KINDS: ReadonlySet<string> = new Set<SandboxFailureKind>([
  "timeout",
  "cpu_limit",
  "memory_limit",
  "crash",
  "protocol_violation",
  "reward_out_of_range",
  "output_limit",
  "forbidden",
]);

/**
 * Solver reward of one episode (design map, "Key formulas": Solver return):
 * `clip(Σ stepRewards, low, high) + invalidActionPenalty · invalidActions
 * + (cut by the sandbox ? sandboxCutPenalty : 0)`.
 * Source: SPADE (Solver return of an episode, clipped to the env's range);
 * the penalties are envforge's (defaults in {@link DEFAULT_SOLVER_REWARD}).
 *
 * @param input step rewards, declared range, invalid action count, failure
 * @param params penalties; {@link DEFAULT_SOLVER_REWARD} by default
 * @returns the reward and its parts; never throws
 */
export function solverReward(input: SolverRewardInput, params: SolverRewardParams = DEFAULT_SOLVER_REWARD): SolverReward {
  const [low, high] = input.rewardRange;
  const sum = input.stepRewards.reduce((total, reward) => total + reward, 0);
  const clippedReturn = Math.min(high, Math.max(low, sum));
  const cutBySandbox = input.failure !== undefined && SANDBOX_FAILURE_KINDS.has(input.failure.kind);
  const invalidActions = Math.max(0, input.invalidActions ?? 0);
  const penalty = params.invalidActionPenalty * invalidActions + (cutBySandbox ? params.sandboxCutPenalty : 0);
  return { reward: clippedReturn + penalty, clippedReturn, penalty, cutBySandbox };
}

/**
 * {@link solverReward} of a played {@link Episode}: step rewards from its turns,
 * invalid actions from the turns the environment marked (`Turn.invalidAction`,
 * from `info.invalid_action`), failure from `episode.failure`.
 *
 * @param episode a finished episode
 * @param rewardRange the environment's `manifest.rewardRange`
 * @param params penalties; {@link DEFAULT_SOLVER_REWARD} by default
 */
export function solverRewardOfEpisode(
  episode: Episode,
  rewardRange: readonly [number, number],
  params: SolverRewardParams = DEFAULT_SOLVER_REWARD,
): SolverReward {
  return solverReward(
    {
      stepRewards: episode.turns.map((turn) => turn.reward),
      rewardRange,
      invalidActions: episode.turns.filter((turn) => turn.invalidAction === true).length,
      ...(episode.failure ? { failure: episode.failure } : {}),
    },
    params,
  );
}
