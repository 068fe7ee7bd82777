import type { DesignTokens, Episode, Turn } from "../../spec/index.js";
import type { TokenSegment, TokenTrajectory } from "./trajectory.js";

/** A turn whose prompt, action tokens and sampling logprobs are all known. */
type TokenTurn = Turn & { readonly promptTokens: readonly number[]; readonly actionTokens: readonly number[]; readonly actionLogprobs: readonly number[] };

function hasTokens(turn: Turn): turn is TokenTurn {
  return (
    turn.promptTokens !== undefined &&
    turn.actionTokens !== undefined &&
    turn.actionLogprobs !== undefined &&
    turn.actionTokens.length > 0 &&
    turn.actionLogprobs.length === turn.actionTokens.length
  );
}

function startsWith(tokens: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > tokens.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (tokens[index] !== prefix[index]) return false;
  return true;
}

/**
 * Token trajectories of a Solver episode (Tinker cookbook RL datums): consecutive
 * turns are merged into one sequence while each turn's prompt tokens start with the
 * tokens so far (previous prompt + sampled action), the extra prompt tokens becoming
 * an `environment` segment (the chat template's turn markers and the observation);
 * when a prompt breaks that prefix property (the decoded action re-tokenised
 * differently, or older turns dropped from the history), a new sequence starts.
 * So an episode gives one trajectory in the best case and one per turn in the worst.
 * Only sampled action tokens are `policy` tokens, with their sampling logprobs.
 *
 * @returns [] when any turn lacks prompt tokens, action tokens or matching logprobs
 *   (a provider that gives no tokens: the sample has no datum)
 */
export function episodeTrajectories(episode: Episode): TokenTrajectory[] {
  if (episode.turns.length === 0 || !episode.turns.every(hasTokens)) return [];
  return mergeTurns(episode.turns as readonly TokenTurn[]);
}

/** Merges turns into as few sequences as the prefix property allows (see {@link episodeTrajectories}). */
function mergeTurns(turns: readonly Pick<TokenTurn, "promptTokens" | "actionTokens" | "actionLogprobs">[]): TokenTrajectory[] {
  const trajectories: TokenTrajectory[] = [];
  let segments: TokenSegment[] = [];
  let sequence: number[] = [];
  for (const turn of turns) {
    if (segments.length > 0 && startsWith(turn.promptTokens, sequence)) {
      const extra = turn.promptTokens.slice(sequence.length);
      if (extra.length > 0) segments.push({ source: "environment", tokens: extra });
    } else {
      if (segments.length > 0) trajectories.push({ segments });
      segments = [{ source: "prompt", tokens: turn.promptTokens }];
      sequence = [...turn.promptTokens];
    }
    segments.push({ source: "policy", tokens: turn.actionTokens, logprobs: turn.actionLogprobs });
    sequence = [...turn.promptTokens, ...turn.actionTokens];
  }
  trajectories.push({ segments });
  return trajectories;
}

/**
 * The token trajectories of one Designer sample: the prompt, then the completion as
 * `policy` tokens with their sampling logprobs. A multi-turn design (repair turns)
 * is merged like a Solver episode ({@link episodeTrajectories}): each repair's
 * feedback becomes an `environment` segment between the completions, so the whole
 * conversation is one trajectory when its prompts extend each other.
 *
 * @returns [] when the sample has no tokens, or any attempt has no completion token or logprobs of another length
 */
export function designTrajectories(tokens: DesignTokens | undefined): TokenTrajectory[] {
  if (tokens === undefined) return [];
  const turns = [tokens, ...(tokens.repairs ?? [])].map((turn) => ({ promptTokens: turn.prompt, actionTokens: turn.completion, actionLogprobs: turn.logprobs }));
  if (turns.some((turn) => turn.actionTokens.length === 0 || turn.actionLogprobs.length !== turn.actionTokens.length)) return [];
  return mergeTurns(turns);
}
