import type { ToolDefinition, Turn } from "../../spec/index.js";

/** What a policy sees before acting: the latest observation, the turns so far and, in a tool environment, its tools. */
export interface PolicyContext {
  readonly observation: string;
  readonly initialObservation: string;
  readonly turns: readonly Turn[];
  /** The environment's tools (`manifest.tools`); absent for a text environment. */
  readonly tools?: readonly ToolDefinition[];
}

/** A policy's action, with the sampled tokens and logprobs when the policy is a model. */
export interface PolicyAction {
  readonly text: string;
  readonly tokens?: readonly number[];
  readonly logprobs?: readonly number[];
  /** Token ids of the prompt the action was sampled after, when the model gave them. */
  readonly promptTokens?: readonly number[];
}

/**
 * Anything that acts in an environment: the Solver model, the oracle, or a
 * baseline. `act` may throw; the episode then ends with failure `policy_error`.
 */
export interface Policy {
  readonly name: string;
  act(context: PolicyContext): Promise<PolicyAction>;
}
