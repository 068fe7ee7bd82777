import { EnvforgeError, pass, reject, type ChatMessage, type LanguageModel, type Verdict, type VerdictGate } from "../../spec/index.js";
import { findJson } from "./completion-json.js";
import { reviewGrammar } from "./grammars.js";
import type { RubricStage } from "./rubrics.js";

/** Sampling settings of one model role in evolution. */
export interface RoleSettings {
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed?: number;
}

/** Gate names of the reviewer's verdicts. */
export const REVIEW_GATES = { plan: "plan-review", child: "rubric" } as const satisfies Record<RubricStage, VerdictGate>;

/** Longest feedback kept from a review, characters. */
export const MAX_FEEDBACK_CHARS = 1500;

/** The reviewer's prompt for one object (a plan or a child environment): one check per rubric, reasons before decisions. */
export function reviewPrompt(stage: RubricStage, rubrics: readonly string[], subject: string): ChatMessage[] {
  const list = rubrics.length === 0 ? "(no rubrics)" : rubrics.map((rubric, index) => `${index + 1}. ${rubric}`).join("\n");
  return [
    {
      role: "system",
      content: `You are the Reviewer. You check an ${stage === "plan" ? "edit plan for an environment" : "evolved environment against its plan"} against numbered rubrics, one at a time, and say for each whether it holds.`,
    },
    {
      role: "user",
      content: `Rubrics:\n${list}\n\n${subject}\n\nCheck the rubrics one by one. Reply with only a JSON object: {"checks": [{"rubric": 1, "why": "one short sentence on rubric 1", "holds": true}, ...]} with one check per rubric, in order. Set "holds" to false only when what you read clearly violates the rubric; the "why" of a false check says what to change.`,
    },
  ];
}

/** One per-rubric check of a review: `{"rubric": n, "why": "…", "holds": true|false}` (a reply cut at the token bound keeps its finished checks). */
const CHECK = /\{\s*"rubric"\s*:\s*(\d+)\s*,\s*"why"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"holds"\s*:\s*(true|false)\s*\}/g;

/**
 * Parses a review. Per-rubric checks (`{"checks": [{"rubric": n, "why":
 * "…", "holds": bool}, …]}`, the form {@link reviewPrompt} asks for) decide
 * by program: any check that does not hold rejects, with the failing checks'
 * reasons as feedback (even from a reply cut at the token bound); all checks
 * holding in a complete object passes. Otherwise a JSON object with `verdict`
 * (`pass`/`accept` or `reject`/`fail`) and optional `feedback`, or a reply
 * whose first word is PASS or REJECT (the rest is the feedback). Anything
 * else is null.
 */
export function parseRubricReview(completion: string): { readonly passed: boolean; readonly feedback: string } | null {
  const checks = [...completion.matchAll(CHECK)].map((match) => ({ rubric: Number(match[1]), why: JSON.parse(match[2] as string) as string, holds: match[3] === "true" }));
  const failing = checks.filter((check) => !check.holds);
  if (failing.length > 0) return { passed: false, feedback: failing.map((check) => `rubric ${check.rubric}: ${check.why}`).join(" ").slice(0, MAX_FEEDBACK_CHARS) };
  const object = findJson(completion, "object") as Record<string, unknown> | undefined;
  if (checks.length > 0 && Array.isArray(object?.checks)) return { passed: true, feedback: "" };
  const verdict = typeof object?.verdict === "string" ? object.verdict.trim().toLowerCase() : undefined;
  const feedbackOf = (value: unknown) => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value)).slice(0, MAX_FEEDBACK_CHARS);
  if (verdict === "pass" || verdict === "accept") return { passed: true, feedback: feedbackOf(object?.feedback) };
  if (verdict === "reject" || verdict === "fail") return { passed: false, feedback: feedbackOf(object?.feedback) };
  const word = /^\W*(pass|accept|reject|fail)\b[\s:.,-]*/i.exec(completion.trim());
  if (word) {
    const passed = /^(pass|accept)$/i.test(word[1] ?? "");
    return { passed, feedback: completion.trim().slice(word[0].length).slice(0, MAX_FEEDBACK_CHARS) };
  }
  return null;
}

/** Options of {@link review}. */
export interface ReviewOptions {
  /** Constrain the reply with {@link reviewGrammar} (one check per rubric) where the provider enforces grammars (config `evolution.grammar`). @default false */
  readonly grammar?: boolean;
}

/**
 * The rubric reviewer (environment evolution, planning and modification
 * loops): asks the model to judge `subject` against `rubrics`. Returns a pass
 * verdict, or a reject whose message is the feedback for the next round:
 * reason `rubric_failed` (the reviewer rejected), `review_unparseable` (no
 * verdict could be read: counts as a rejection) or `model_error`. Never throws.
 */
export async function review(model: LanguageModel, stage: RubricStage, rubrics: readonly string[], subject: string, settings: RoleSettings, options: ReviewOptions = {}): Promise<Verdict> {
  const gate = REVIEW_GATES[stage];
  let text: string;
  try {
    const grammar = options.grammar === true && rubrics.length > 0 ? { grammar: reviewGrammar(rubrics.length) } : {};
    text = (await model.generate(reviewPrompt(stage, rubrics, subject), { ...settings, ...grammar })).text;
  } catch (error) {
    const code = error instanceof EnvforgeError ? error.code : "model_error";
    return reject(gate, "model_error", `${code}: ${(error as Error).message}`);
  }
  const parsed = parseRubricReview(text);
  if (parsed === null) {
    return reject(gate, "review_unparseable", "the reviewer's reply held no verdict; answer with the JSON object asked for", { reply: text.slice(0, 500) });
  }
  if (parsed.passed) return pass(gate, parsed.feedback.length > 0 ? { feedback: parsed.feedback } : undefined);
  return reject(gate, "rubric_failed", parsed.feedback.length > 0 ? parsed.feedback : "the reviewer rejected without feedback");
}
