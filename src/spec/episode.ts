import type { SandboxFailureKind } from "./sandbox.js";
import type { ToolCallErrorType } from "./tool-call.js";

/**
 * The `info` key by which an environment says it refused the action: it could not
 * be read in the task's format, or it is not allowed in the current state, so the
 * step changed nothing. `info.invalid_action === true` marks the turn
 * ({@link Turn.invalidAction}); the Solver reward adds `reward.invalidActionPenalty`
 * per marked turn. Any other value, or no key, is a valid action. envforge's
 * convention (Gymnasium leaves `info` to the environment).
 */
export const INVALID_ACTION_INFO_KEY = "invalid_action";

/** One agent step of an episode. */
export interface Turn {
  /** The action the agent sent. */
  readonly action: string;
  /** The observation that came back. */
  readonly observation: string;
  /** The step reward. */
  readonly reward: number;
  /** The environment refused the action (`info.invalid_action === true`, {@link INVALID_ACTION_INFO_KEY}); absent otherwise. */
  readonly invalidAction?: true;
  /** A tool environment's turn whose reply made tool calls: how many ran (each one `step`). */
  readonly toolCalls?: number;
  /** A tool environment's turn whose reply was refused before reaching the environment: why. */
  readonly toolError?: ToolCallErrorType;
  /** Token ids of the action as sampled by the policy, when known. */
  readonly actionTokens?: readonly number[];
  /** Sampling logprobs of `actionTokens`, when known. */
  readonly actionLogprobs?: readonly number[];
  /** Token ids of the whole prompt the action was sampled after (chat template included), when known. */
  readonly promptTokens?: readonly number[];
}

/**
 * A finished episode (one rollout). `return` is the sum of step rewards clipped to
 * the environment's reward range; `won` is `return >= passThreshold`.
 * `failure` is set when the sandbox or the policy cut the episode short.
 */
export interface Episode {
  readonly seed: number;
  /** The level `reset` built the instance at (levelled families only; absent: the family has one level). */
  readonly level?: number;
  /** The first observation (from `reset`). */
  readonly initialObservation: string;
  readonly turns: readonly Turn[];
  readonly return: number;
  readonly won: boolean;
  /** The environment ended the episode (`terminated`) rather than the turn cap. */
  readonly terminated: boolean;
  readonly truncated: boolean;
  /** Why the episode was cut short, if it was. */
  readonly failure?: { readonly kind: SandboxFailureKind | "policy_error"; readonly message: string };
}

/** Who acted in an episode. */
export type EpisodeRole = "solver" | "calibration";
