import type { RejectVerdict, Verdict } from "../../spec/index.js";
import type { DesignFormat } from "./designer-prompt.js";

/**
 * What to change, by reject reason, for the reasons small models meet most
 * (measured with `envforge bench designer`): one sentence after the verdict.
 */
export const REPAIR_ADVICE: Readonly<Record<string, string>> = {
  seeds_identical: "generate(rng) must draw the instance's values from rng (rng.randint, rng.choice, rng.sample), so that different seeds give different tasks.",
  reset_failed: "Read the traceback: the line it names raised the error when generate, render or solve ran.",
  hint_leaks_answer: "HINT must describe how to solve the task, not state the answer or a value from it.",
  text_near_duplicate: "Write a different task, not a copy of the example or of an existing task.",
  behaviour_copy: "Write a different task, not a copy of the example or of an existing task.",
  fixed_reply_passes: "solve(instance) must depend on the instance: different seeds need different answers, so that one fixed reply cannot win every time.",
  random_agent_passes: "A random reply must not win: solve(instance) needs an answer that guessing rarely hits.",
  syntax_error: "Check the line named in the message: unbalanced brackets or quotes, or a statement cut off.",
  missing_environment: "Define generate(rng), render(instance) and solve(instance) at module level, in one python block.",
  invalid_manifest: "Set NAME, TITLE, DESCRIPTION and HINT as string constants and SKILLS as a list of strings.",
  oracle_failed: "solve(instance) must return exactly the answer a correct reply gives, in the format render asks for.",
  review_rejected: "Fix what the reviews fault: the question render(instance) asks and the answer solve(instance) returns must agree, and DESCRIPTION must say what the task is.",
  too_hard: "Check that solve(instance) returns the answer to the question render(instance) asks, in the format it asks for, and make each instance smaller (fewer items, smaller numbers) so that it is solved in one short reply.",
  too_easy: "Make each instance harder (more items, larger numbers, one more step), keeping solve(instance) exact.",
};

/** Longest evidence excerpt sent back on a repair turn, characters. */
export const REPAIR_EVIDENCE_CHARS = 700;

/** Lines of a traceback (or other multi-line detail) kept on a repair turn: the last ones. */
export const REPAIR_DETAIL_LINES = 8;

/** How a repair turn is asked (config `designer.repairMode`). */
export type RepairMode = "conversation" | "restart";

/** Options of {@link repairMessage}. */
export interface RepairMessageOptions {
  /** Whether the attempt stopped at `designer.maxTokens`. @default false */
  readonly truncated?: boolean;
  /**
   * The message is a note appended to the original prompt, asked again without the
   * attempt (`restart`), instead of the next user message after it (`conversation`).
   * @default "conversation"
   */
  readonly mode?: RepairMode;
}

/**
 * The feedback of a repair turn (design map, data flow: "repair turn"): the
 * first failing verdict's gate, reason and message, for the scaffolded format one
 * sentence of {@link REPAIR_ADVICE} for its reason, its evidence (the last
 * {@link REPAIR_DETAIL_LINES} lines of a traceback, the rest as compact JSON,
 * at most {@link REPAIR_EVIDENCE_CHARS} characters), then what to send. In the
 * `conversation` mode it follows the attempt and asks for the whole corrected
 * design; in the `restart` mode (and always for an attempt cut off at the token
 * bound: small models loop on repeated lines until it, and copy a loop they are
 * shown) it is a note on the original prompt asking for the task again.
 *
 * @param verdicts the attempt's verdicts in order; the first reject is reported
 * @param format the prompt's reply format
 */
export function repairMessage(verdicts: readonly Verdict[], format: DesignFormat, options: RepairMessageOptions = {}): string {
  const failed = verdicts.find((verdict): verdict is RejectVerdict => verdict.status === "reject");
  const restart = options.truncated === true || options.mode === "restart";
  const lines: string[] = [];
  if (failed !== undefined) {
    const cut = options.truncated ? " was cut off at the token limit and" : "";
    lines.push(restart ? `An earlier reply to this${cut} was rejected by the ${failed.gate} check (${failed.reason}): ${failed.message}` : `Your task was rejected by the ${failed.gate} check (${failed.reason}): ${failed.message}`);
    const advice = format === "scaffold" ? REPAIR_ADVICE[failed.reason] : undefined;
    if (advice !== undefined) lines.push(advice);
    const evidence = evidenceExcerpt(failed.evidence);
    if (evidence.length > 0 && !options.truncated) lines.push(evidence);
  } else {
    lines.push(restart ? "An earlier reply to this was not admitted." : "Your task was not admitted.");
  }
  if (options.truncated) lines.push("Write a shorter program, under 40 lines, with no repeated lines.");
  else if (restart) lines.push("Write the task again and avoid that error.");
  else lines.push(format === "scaffold" ? "Fix it and reply with the whole corrected python block only (NAME, TITLE, DESCRIPTION, HINT, SKILLS, generate, render, solve)." : "Fix it and reply with all three corrected blocks (json, env.py, oracle.py) only.");
  return lines.join("\n");
}

function evidenceExcerpt(evidence: Readonly<Record<string, unknown>> | undefined): string {
  if (evidence === undefined) return "";
  const parts: string[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(evidence)) {
    if (typeof value === "string" && value.includes("\n")) parts.push(value.trimEnd().split("\n").slice(-REPAIR_DETAIL_LINES).join("\n"));
    else rest[key] = value;
  }
  if (Object.keys(rest).length > 0) parts.unshift(JSON.stringify(rest));
  const text = parts.join("\n");
  return text.length > REPAIR_EVIDENCE_CHARS ? `${text.slice(0, REPAIR_EVIDENCE_CHARS)}…` : text;
}
