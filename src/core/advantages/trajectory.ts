/**
 * A run of consecutive tokens of one origin in a multi-turn conversation:
 * - `prompt`: system and user prompt tokens (chat template included);
 * - `environment`: observations returned by the environment;
 * - `policy`: tokens the policy sampled itself, with their sampling logprobs.
 */
export type TokenSegment =
  | { readonly source: "prompt" | "environment"; readonly tokens: readonly number[] }
  | {
      readonly source: "policy";
      readonly tokens: readonly number[];
      /** Natural-log probability of each token under the sampling policy; same length as `tokens`. */
      readonly logprobs: readonly number[];
    };

/**
 * The token ids of a whole conversation (Solver episode or Designer completion),
 * segments in order. Only `policy` segments are trained on.
 */
export interface TokenTrajectory {
  readonly segments: readonly TokenSegment[];
}
