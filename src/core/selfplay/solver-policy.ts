import type { ChatMessage, LanguageModel } from "../../spec/index.js";
import { extractAnswer, type Policy, type PolicyContext } from "../rollout/index.js";

/**
 * How the Solver replies (config `solver.format`): `action`, the reply is the action; `answer`,
 * reasoning then the action in `<answer>…</answer>` ({@link SOLVER_ANSWER_INSTRUCTION}).
 */
export type SolverFormat = "action" | "answer";

/** Options of {@link solverPolicy}. */
export interface SolverPolicyOptions {
  /** The privileged hint, shown after the first observation; null plays without it. */
  readonly hint: string | null;
  readonly maxTokens: number;
  readonly temperature: number;
  /** Base sampling seed; turn t uses `seed + t`. */
  readonly seed: number;
  /** Earlier turns kept in the prompt, at least 1 (older ones are dropped). @default 6 */
  readonly historyTurns?: number;
  /** How the Solver replies. @default "action" */
  readonly format?: SolverFormat | undefined;
  /**
   * Characters of earlier turns (actions and observations) kept in the prompt, so long observations
   * (a terminal command's output, up to 16 KB) stay within the model's context: the oldest kept turns
   * are dropped until the rest fit, and a last turn that alone is longer has its observation cut in
   * the middle, with the cut said. @default {@link DEFAULT_HISTORY_CHARS}
   */
  readonly historyChars?: number | undefined;
}

/** Default character budget of the Solver's earlier turns (about 1,500 to 2,000 tokens: half the embedded engine's 4,096-token context). */
export const DEFAULT_HISTORY_CHARS = 6000;

/** Longest action passed to an environment, characters. */
export const MAX_ACTION_CHARS = 2000;

/**
 * The Solver role: the model plays an episode as a multi-turn chat, with the
 * observation as the user message and its reply as the action (SPADE). With a
 * hint, the hint is shown after the first observation ({@link solverMessages}).
 * In the `answer` format the action is the reply's last `<answer>…</answer>`
 * (else `\boxed{}`; else empty) while the tokens returned are the whole reply,
 * so its reasoning trains with it; later turns show the action, not the reasoning.
 *
 * In a tool environment (`context.tools`) the tools go to the model with the chat
 * ({@link GenerateOptions.tools}: the model's chat template or the API renders them), the
 * whole reply is the action (its `<tool_call>` markup parsed by the episode loop), and the
 * results of a turn's calls come back as a `tool` message ({@link solverMessages}).
 */
export function solverPolicy(model: LanguageModel, options: SolverPolicyOptions): Policy {
  return {
    name: options.hint === null ? "solver" : "solver+hint",
    async act(context) {
      const tools = context.tools ?? [];
      const generation = await model.generate(solverMessages(context, options), {
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        seed: options.seed + context.turns.length,
        ...(tools.length > 0 ? { tools } : {}),
      });
      const reply = generation.text.trim();
      // in a tool environment the reply is the action whatever the format: its tool-call markup is the action's
      const answerOnly = options.format === "answer" && tools.length === 0;
      return {
        text: (answerOnly ? (extractAnswer(reply) ?? "") : reply).slice(0, MAX_ACTION_CHARS),
        ...(generation.tokens ? { tokens: generation.tokens } : {}),
        ...(generation.logprobs ? { logprobs: generation.logprobs } : {}),
        ...(generation.promptTokens ? { promptTokens: generation.promptTokens } : {}),
      };
    },
  };
}

/**
 * The Solver's instruction, placed after the first observation (and the hint).
 * After the task rather than in a system message: small chat models (the embedded
 * Gemma 3 270M) echo a leading system prompt instead of acting; with the
 * instruction last, 25 of 60 sampled first actions on the ten seed environments
 * were readable (not flagged `invalid_action`) against 8 of 60
 * (`node scripts/solver-prompt-format.mjs`; docs/benchmarks/models.md, "Solver prompt").
 */
export const SOLVER_INSTRUCTION = "Reply with your next action only, in the exact format the task asks for.";

/** The Solver's instruction in the `answer` format (config `solver.format`), in place of {@link SOLVER_INSTRUCTION}. */
export const SOLVER_ANSWER_INSTRUCTION = "Think step by step, briefly. Then give your next action inside <answer></answer>, in the exact format the task asks for.";

/** The Solver's instruction in a tool environment (any format), in place of {@link SOLVER_INSTRUCTION}: the tools themselves are described by the chat template. */
export const SOLVER_TOOL_INSTRUCTION = "Call the tools you need, one step at a time. When the task is done, reply with a final message (no tool call) in the format the task asks for.";

/**
 * The chat the Solver sees at one turn: the first user message holds the initial
 * observation, a note when earlier turns were dropped, the hint when there is one
 * and {@link SOLVER_INSTRUCTION} ({@link SOLVER_ANSWER_INSTRUCTION} in the `answer`
 * format); then each kept turn as the assistant's action and the user's
 * observation (a `tool` message when the turn's reply made tool calls, {@link Turn.toolCalls};
 * in a tool environment the instruction is {@link SOLVER_TOOL_INSTRUCTION}). At most `historyTurns` turns are kept, and no more than fit in
 * `historyChars` (the last turn always, its observation cut in the middle when it
 * alone is longer). There is no system message, and the first message is the
 * same at every turn while nothing is dropped, so the prompts of one episode extend each other (one datum
 * per episode while the history fits).
 */
export function solverMessages(context: PolicyContext, options: Pick<SolverPolicyOptions, "hint" | "historyTurns" | "format" | "historyChars">): ChatMessage[] {
  const keep = Math.max(1, Math.floor(options.historyTurns ?? 6));
  const budget = Math.max(200, Math.floor(options.historyChars ?? DEFAULT_HISTORY_CHARS));
  let recent = context.turns.slice(-keep);
  const size = (turns: typeof recent) => turns.reduce((total, turn) => total + turn.action.length + turn.observation.length, 0);
  while (recent.length > 1 && size(recent) > budget) recent = recent.slice(1);
  const omitted = context.turns.length - recent.length;
  const first = [
    omitted === 0 ? context.initialObservation : `${context.initialObservation}\n[${omitted} earlier turns omitted]`,
    "",
    ...(options.hint === null ? [] : [`Hint: ${options.hint}`]),
    (context.tools?.length ?? 0) > 0 ? SOLVER_TOOL_INSTRUCTION : options.format === "answer" ? SOLVER_ANSWER_INSTRUCTION : SOLVER_INSTRUCTION,
  ].join("\n");
  const messages: ChatMessage[] = [{ role: "user", content: first }];
  for (const turn of recent) {
    messages.push({ role: "assistant", content: turn.action.length > 0 ? turn.action : "(no action)" });
    messages.push({ role: (turn.toolCalls ?? 0) > 0 ? "tool" : "user", content: cutMiddle(turn.observation, Math.max(100, budget - turn.action.length)) });
  }
  return messages;
}

/** `text` when it has at most `limit` characters; else its head and tail with a note of the characters cut between them. */
function cutMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit - 60);
  const head = text.slice(0, Math.ceil(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  return `${head}\n[… ${text.length - head.length - tail.length} characters cut from this observation …]\n${tail}`;
}
