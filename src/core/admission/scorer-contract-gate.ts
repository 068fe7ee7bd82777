import { pass, reject, type EnvPackage, type EnvSession, type Episode, type Verdict } from "../../spec/index.js";
import { playEpisode } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle, winningActions } from "./oracle-gate.js";
import { invalidStepResult, rewardRangeViolation, scriptedPolicy, withSession } from "./probe-episodes.js";

/** Kinds of perturbation applied to the oracle's winning action. */
export type PerturbationKind =
  | "token_changed"
  | "wrong_type"
  | "wrong_format"
  | "extra_text"
  | "neighbour_values"
  | "candidate_tokens"
  | "whole_range";

/** Most values a `whole_range` candidate list enumerates (every value of up to four digits). */
export const WHOLE_RANGE_LIMIT = 10_000;

/**
 * Perturbed versions of a winning action `answer`: one token changed (the last
 * number incremented, else the last word's last letter shifted), a value of the
 * wrong type (`null` for answers with digits, `0` otherwise), the wrong format
 * (the value base64-encoded), extra text around the answer that also holds two
 * decoy answers (a scorer that looks for the answer anywhere in the reply
 * accepts it; one that reads one answer does not), and candidate lists in the
 * answer's own format (after its label, e.g. `Answer: `): the last number
 * with its neighbours (`41 42 43`), the answer between two decoys of the
 * same format (`45 42 49`; for words, letters shifted), and, for a value of
 * one number of at most four digits, every value of its width (`0 1 … 99`,
 * zero-padded when the answer is). Kinds that do not apply (no number) are left out.
 */
export function perturbAnswer(answer: string): Partial<Record<PerturbationKind, string>> & Record<"token_changed" | "wrong_type" | "wrong_format" | "extra_text" | "candidate_tokens", string> {
  const changed = changeOneToken(answer, 1);
  const label = labelOf(answer);
  const value = answer.slice(label.length);
  const lastNumber = [...value.matchAll(/\d+/g)].at(-1);
  const separator = /\d\s*,\s*\d/.test(value) ? ", " : " ";
  return {
    token_changed: changed,
    wrong_type: /\d/.test(answer) ? "null" : "0",
    wrong_format: encodedValue(answer),
    extra_text: `My first thought: ${changed}\nFinal answer: ${answer}\nOn second thought: ${changeOneToken(answer, 2)}`,
    ...(lastNumber?.index === undefined ? {} : { neighbour_values: label + withNeighbours(value, lastNumber[0], lastNumber.index, separator) }),
    // the answer between the decoys: a scorer that reads the first or the last value refuses it
    candidate_tokens: label + [changeOneToken(value, 3), value, changeOneToken(value, 7)].join(separator),
    ...(/^\s*\d{1,4}\s*$/.test(value) ? { whole_range: label + wholeRange(value.trim()) } : {}),
  };
}

/** `value` with the number `digits` at `index` replaced by it and its two neighbours (same width, never negative). */
function withNeighbours(value: string, digits: string, index: number, separator: string): string {
  const number = Number(digits);
  const width = digits.startsWith("0") ? digits.length : 0;
  const neighbours = [number - 1, number, number + 1].filter((entry) => entry >= 0).map((entry) => String(entry).padStart(width, "0"));
  return value.slice(0, index) + neighbours.join(separator) + value.slice(index + digits.length);
}

/** Every value of the width of `digits` (`0`..`99` for `42`, `0000`..`9999` for `0417`), space-separated. */
function wholeRange(digits: string): string {
  const count = Math.min(10 ** digits.length, WHOLE_RANGE_LIMIT);
  const width = digits.startsWith("0") ? digits.length : 0;
  return Array.from({ length: count }, (_, number) => String(number).padStart(width, "0")).join(" ");
}

/** The short leading label of an action (`Answer: `), or "". */
function labelOf(answer: string): string {
  return /^\s*[A-Za-z][A-Za-z ]{0,20}:\s*/.exec(answer)?.[0] ?? "";
}

/** The action with its value (after a short label such as `Answer:`) base64-encoded: the right content in a format no task asks for. */
function encodedValue(answer: string): string {
  const label = labelOf(answer);
  return label + Buffer.from(answer.slice(label.length), "utf8").toString("base64");
}

function changeOneToken(answer: string, by: number): string {
  const numbers = [...answer.matchAll(/\d+/g)];
  const last = numbers.at(-1);
  if (last?.index !== undefined) {
    const value = String((Number(last[0]) + by) % 10 ** last[0].length).padStart(last[0].length, "0");
    return answer.slice(0, last.index) + value + answer.slice(last.index + last[0].length);
  }
  const letters = [...answer.matchAll(/[a-zA-Z]/g)];
  const letter = letters.at(-1);
  if (letter?.index !== undefined) {
    const code = letter[0].toLowerCase().charCodeAt(0) - 97;
    return answer.slice(0, letter.index) + String.fromCharCode(97 + ((code + by) % 26)) + answer.slice(letter.index + 1);
  }
  return `${answer}${by}`;
}

/**
 * Gate 6, scorer contract: on every seed the oracle wins, its episode is
 * replayed with the last (winning) action perturbed ({@link perturbAnswer});
 * a perturbation that still reaches the pass threshold on every such seed (at
 * least two) shows a scorer that accepts wrong answers. Candidate lists
 * (neighbouring values, several tokens, the whole small range) are tried on
 * single-turn and multi-turn tasks; extra text and word candidate lists on
 * single-turn tasks only (one right answer). Every step reward and each episode's
 * running return must stay inside `rewardRange`. Requiring every seed
 * keeps tasks with several right answers (where one changed token can be
 * right by chance) from false rejections. Reason codes:
 * `perturbed_answer_accepted` (evidence: kind, the perturbed action, seeds),
 * `reward_out_of_range`, `load_failed`.
 */
export function scorerContractGate(): AdmissionGate {
  return { name: "scorer-contract", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const played = await playOracle(candidate, context);
  if (played.kind !== "ok") return reject("scorer-contract", "load_failed", `env.py or oracle.py failed to load: ${played.message}`, { kind: played.kind });
  const wins = winningActions(played.value);
  if (wins.length < 2) return pass("scorer-contract", { checked: wins.length, note: "fewer than two winning oracle episodes to perturb" });
  const accepted = new Map<PerturbationKind, { seed: number; action: string }[]>();
  const singleTurn = candidate.manifest.interaction === "single-turn";
  const replayed = await withSession(context.sandbox, candidate, false, async (session) => {
    for (const win of wins) {
      for (const [kind, action] of Object.entries(perturbAnswer(win.answer)) as [PerturbationKind, string][]) {
        if (action === win.answer || !appliesTo(kind, win.answer, singleTurn)) continue;
        const episode = await replay(session, candidate, win.seed, [...win.actions.slice(0, -1), action]);
        const outOfRange = rewardRangeViolation("scorer-contract", [episode], candidate) ?? invalidStepResult("scorer-contract", [episode]);
        if (outOfRange !== null) return outOfRange;
        if (episode.won) accepted.set(kind, [...(accepted.get(kind) ?? []), { seed: win.seed, action }]);
      }
    }
    return null;
  });
  if (replayed.kind !== "ok") return reject("scorer-contract", "load_failed", `env.py failed to load: ${replayed.message}`, { kind: replayed.kind });
  if (replayed.value !== null) return replayed.value;
  for (const [kind, seeds] of accepted) {
    if (seeds.length === wins.length) {
      return reject("scorer-contract", "perturbed_answer_accepted", `a ${kind.replaceAll("_", " ")} version of the oracle's answer still wins on all ${wins.length} seeds`, {
        kind,
        example: seeds[0]?.action.slice(0, 300),
        seeds: seeds.map((entry) => entry.seed),
      });
    }
  }
  return pass("scorer-contract", { checked: wins.length, acceptedBySeed: Object.fromEntries([...accepted].map(([kind, seeds]) => [kind, seeds.length])) });
}

/**
 * Whether a perturbation kind is tried on `answer`. In multi-turn tasks the
 * last action is often a move or command that lenient parsers rightly find in
 * extra text or among other words, so there only the kinds that keep one
 * value, and the number lists of numeric answers, are tried.
 */
function appliesTo(kind: PerturbationKind, answer: string, singleTurn: boolean): boolean {
  if (singleTurn) return true;
  if (kind === "extra_text") return false;
  if (kind === "candidate_tokens") return /\d/.test(answer);
  return true;
}

/** The episode of `actions` sent in turn from `reset(seed)`. */
function replay(session: EnvSession, candidate: EnvPackage, seed: number, actions: readonly string[]): Promise<Episode> {
  return playEpisode(session, candidate.manifest, seed, scriptedPolicy("perturbed-oracle", actions), { maxTurns: actions.length });
}
