import type { Verdict } from "../../spec/index.js";
import type { DesignFormat } from "./designer-prompt.js";

/** Longest evidence excerpt sent back on a repair turn, characters. */
export const REPAIR_EVIDENCE_CHARS = 700;

/** Lines of a traceback (or other multi-line detail) kept on a repair turn: the last ones. */
export const REPAIR_DETAIL_LINES = 8;

/**
 * The user message of a repair turn (design map, data flow: "repair turn"): the
 * first failing verdict's gate, reason and message, its evidence (the last
 * {@link REPAIR_DETAIL_LINES} lines of a traceback, the rest as compact JSON,
 * at most {@link REPAIR_EVIDENCE_CHARS} characters), and the instruction to
 * reply with the whole corrected design in the format asked for.
 *
 * When the attempt was cut off at the token bound (small models loop on
 * repeated lines until the bound), the message is instead a note appended to the
 * original prompt, which is asked again without the attempt: the earlier reply
 * was cut off and rejected, write a shorter program with no repeated lines.
 *
 * @param verdicts the attempt's verdicts in order; the first reject is reported
 * @param format the prompt's reply format
 * @param truncated whether the attempt stopped at `designer.maxTokens` @default false
 */
export function repairMessage(verdicts: readonly Verdict[], format: DesignFormat, truncated = false): string {
  const failed = verdicts.find((verdict) => verdict.status === "reject");
  const reply =
    format === "scaffold"
      ? "Fix it and reply with the whole corrected python block only (NAME, TITLE, DESCRIPTION, HINT, SKILLS, generate, render, solve)."
      : "Fix it and reply with all three corrected blocks (json, env.py, oracle.py) only.";
  if (truncated) {
    const reason = failed?.status === "reject" ? ` and rejected (${failed.gate}: ${failed.reason})` : "";
    return `An earlier reply to this was cut off at the token limit${reason}: it repeated lines. Write a shorter program, under 40 lines, with no repeated lines.`;
  }
  if (failed === undefined || failed.status !== "reject") return `Your task was not admitted. ${reply}`;
  const lines = [`Your task was rejected by the ${failed.gate} check (${failed.reason}): ${failed.message}`];
  const evidence = evidenceExcerpt(failed.evidence);
  if (evidence.length > 0) lines.push(evidence);
  lines.push(reply);
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
