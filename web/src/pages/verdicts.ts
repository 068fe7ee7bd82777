import type { DesignAttempt, Verdict } from "../../../src/spec/index.js";
import { details, el, json, pre } from "../dom.js";

/** One verdict: gate, pass or reject with reason and message, and its evidence. */
export function verdictView(verdict: Verdict, key: string): HTMLElement {
  const rejected = verdict.status === "reject";
  return el(
    "li",
    { class: `verdict ${verdict.status}`, "data-gate": verdict.gate },
    el("span", { class: "gate" }, verdict.gate),
    " ",
    el("span", { class: `badge ${rejected ? "reject" : "pass"}` }, rejected ? `reject: ${verdict.reason}` : "pass"),
    rejected ? el("span", { class: "message" }, ` ${verdict.message}`) : null,
    verdict.evidence === undefined ? null : details(`${key}-evidence`, "evidence", pre(json(verdict.evidence), "json")),
  );
}

/** Verdicts in pipeline order. */
export function verdictList(verdicts: readonly Verdict[], key: string): HTMLElement {
  if (verdicts.length === 0) return el("p", { class: "empty" }, "no verdicts stored");
  return el("ol", { class: "verdicts" }, ...verdicts.map((verdict, index) => verdictView(verdict, `${key}-${index}`)));
}

/** The rejected attempts of a multi-turn design, oldest first, each with its completion and verdicts. */
export function repairTurns(repairs: readonly DesignAttempt[], key: string): HTMLElement | null {
  if (repairs.length === 0) return null;
  return el(
    "div",
    { class: "repairs" },
    el("h4", {}, `repair turns: ${repairs.length} rejected attempt${repairs.length === 1 ? "" : "s"} before the last`),
    ...repairs.map((attempt, index) => {
      const stop = attempt.verdicts.find((verdict) => verdict.status === "reject");
      return details(
        `${key}-attempt-${index}`,
        `attempt ${index + 1}${stop !== undefined && stop.status === "reject" ? `: ${stop.gate} rejected (${stop.reason})` : ""}`,
        pre(attempt.completion, "completion"),
        verdictList(attempt.verdicts, `${key}-attempt-${index}`),
      );
    }),
  );
}
