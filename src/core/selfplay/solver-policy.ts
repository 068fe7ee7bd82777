import type { ChatMessage, LanguageModel } from "../../spec/index.js";
import type { Policy, PolicyContext } from "../rollout/index.js";

/** Options of {@link solverPolicy}. */
export interface SolverPolicyOptions {
  /** The privileged hint, shown in the system prompt; null plays without it. */
  readonly hint: string | null;
  readonly maxTokens: number;
  readonly temperature: number;
  /** Base sampling seed; turn t uses `seed + t`. */
  readonly seed: number;
  /** Earlier turns kept in the prompt, at least 1 (older ones are dropped). @default 6 */
  readonly historyTurns?: number;
}

/** Longest action passed to an environment, characters. */
export const MAX_ACTION_CHARS = 2000;

/**
 * The Solver role: the model plays an episode as a multi-turn chat, with the
 * observation as the user message and its reply as the action (SPADE). With a
 * hint, the hint is added to the system prompt.
 */
export function solverPolicy(model: LanguageModel, options: SolverPolicyOptions): Policy {
  return {
    name: options.hint === null ? "solver" : "solver+hint",
    async act(context) {
      const generation = await model.generate(solverMessages(context, options), {
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        seed: options.seed + context.turns.length,
      });
      return {
        text: generation.text.trim().slice(0, MAX_ACTION_CHARS),
        ...(generation.tokens ? { tokens: generation.tokens } : {}),
        ...(generation.logprobs ? { logprobs: generation.logprobs } : {}),
        ...(generation.promptTokens ? { promptTokens: generation.promptTokens } : {}),
      };
    },
  };
}

/** The chat the Solver sees at one turn. */
export function solverMessages(context: PolicyContext, options: Pick<SolverPolicyOptions, "hint" | "historyTurns">): ChatMessage[] {
  const system =
    "You are an agent acting in a text environment. Read the observation and reply with your next action only, in the exact format the task asks for." +
    (options.hint === null ? "" : `\nHint: ${options.hint}`);
  const keep = Math.max(1, Math.floor(options.historyTurns ?? 6));
  const recent = context.turns.slice(-keep);
  const messages: ChatMessage[] = [{ role: "system", content: system }];
  if (recent.length === context.turns.length) {
    messages.push({ role: "user", content: context.initialObservation });
  } else {
    messages.push({ role: "user", content: `${context.initialObservation}\n[${context.turns.length - recent.length} earlier turns omitted]` });
  }
  for (const turn of recent) {
    messages.push({ role: "assistant", content: turn.action.length > 0 ? turn.action : "(no action)" });
    messages.push({ role: "user", content: turn.observation });
  }
  return messages;
}
