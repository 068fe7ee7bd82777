import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { hintReadings } from "./hint-readings.js";
import { playOracle, winningActions } from "./oracle-gate.js";

/**
 * The value part of an action: the text after a short leading label such as
 * `Guess:` or `Answer:`, trimmed.
 */
export function answerValue(action: string): string {
  return action.replace(/^\s*[A-Za-z][A-Za-z ]{0,20}:\s*/, "").trim();
}

/** Lower case with everything but letters and digits removed. */
export function normaliseForMatch(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/** A plain number: digits with an optional sign and decimal part. */
const NUMBER = /^[+-]?\p{Nd}+(?:[.,]\p{Nd}+)?$/u;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How a hint gives an answer away (see {@link hintContainsAnswer}). */
export type HintLeak = "literal" | "normalised" | "number_words" | "spaced_digits" | "reversed";

/**
 * Whether `hint` gives away `answer`, searched in every reading of the hint
 * ({@link hintReadings}: as written, number words as digits, spoken digit groups
 * joined, spaced digits joined): a match of the answer's value as a whole word (values of two or
 * more characters; a number also with a unit after it, "823g"; kind `literal` as written, else the reading's kind), a
 * normalised match (case, spaces and punctuation ignored) for values of four
 * or more normalised characters, or the normalised value reversed (four or
 * more characters: "2714" for 4172). The answer's value is the text after a short label
 * ({@link answerValue}); with `stripLabel: false` it is the whole answer (a shell line such as
 * `timeout: 30` stays whole instead of becoming `30`). @default stripLabel true
 */
export function hintContainsAnswer(hint: string, answer: string, options: { readonly stripLabel?: boolean } = {}): HintLeak | null {
  const value = options.stripLabel === false ? answer.trim() : answerValue(answer);
  const normalised = normaliseForMatch(value);
  const readings = readingsOf(hint);
  // a number may carry a unit after it ("823g", "0.5kg"), never more digits, nor letters before it ("int32")
  const whole = NUMBER.test(value)
    ? new RegExp(`(?<![\\p{L}\\p{N}])(?<!\\p{N}[.,])${escapeRegExp(value)}(?![\\p{N}])(?![.,]\\p{N})`, "iu")
    : new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value)}(?![\\p{L}\\p{N}])`, "iu");
  for (const reading of readings) {
    if (value.length >= 2 && whole.test(reading.text)) {
      return reading.kind === "as_written" ? "literal" : reading.kind;
    }
  }
  if (normalised.length < 4) return null;
  for (const reading of readings) {
    if (reading.normalised.includes(normalised)) return reading.kind === "as_written" ? "normalised" : reading.kind;
  }
  // reversed: digits anywhere ("2714" for 4172); words only as whole words ("tluav nepo", not "evil" inside "deliver")
  const reversed = [...normalised].reverse().join("");
  if (reversed === normalised) return null;
  const reversedWords = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp([...value].reverse().join(""))}(?![\\p{L}\\p{N}])`, "iu");
  const digitsOnly = /^\p{Nd}+$/u.test(normalised);
  if (readings.some((reading) => reversedWords.test(reading.text) || (digitsOnly && reading.normalised.includes(reversed)))) return "reversed";
  return null;
}

/** The readings of the last hint asked about, normalised too (the gate asks about one hint for many answers). */
let lastReadings: { hint: string; readings: { kind: HintLeak | "as_written"; text: string; normalised: string }[] } | null = null;

function readingsOf(hint: string) {
  if (lastReadings?.hint !== hint) {
    lastReadings = { hint, readings: hintReadings(hint).map((reading) => ({ ...reading, normalised: normaliseForMatch(reading.text) })) };
  }
  return lastReadings.readings;
}

/**
 * The oracle actions that may carry an answer or secret: every distinct action
 * of a won episode, except those made only of words the agent is shown anyway
 * (every word token occurs in `interfaceText`, the description and first
 * observations): commands such as `open vault` or `double`, moves such as
 * `up`, and examples such as `Guess: 1122`.
 */
export function secretCandidates(wins: readonly { seed: number; actions: readonly string[] }[], interfaceText: string): { seed: number; value: string }[] {
  const shown = new Set(wordsOf(interfaceText));
  const firstSeed = new Map<string, number>();
  for (const win of wins) for (const action of win.actions) if (!firstSeed.has(action)) firstSeed.set(action, win.seed);
  return [...firstSeed]
    .filter(([action]) => !wordsOf(action).every((word) => shown.has(word)))
    .map(([value, seed]) => ({ seed, value }));
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Gate 7: the hint is between `hintMinChars` and `hintMaxChars` long and does
 * not contain an answer or secret the oracle sends on any seed (see
 * {@link secretCandidates}), literally, normalised, in number words, with its
 * digits spaced out, or reversed ({@link hintContainsAnswer}). Reason codes: `hint_length`, `hint_leaks_answer` (evidence:
 * seed, answer, match kind), `load_failed`.
 */
export function hintGate(): AdmissionGate {
  return { name: "hint", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const { hint } = candidate.manifest;
  const { hintMinChars, hintMaxChars } = context.settings;
  if (hint.length < hintMinChars || hint.length > hintMaxChars) {
    return reject("hint", "hint_length", `the hint has ${hint.length} characters; allowed ${hintMinChars}..${hintMaxChars}`, { length: hint.length });
  }
  const played = await playOracle(candidate, context);
  if (played.kind !== "ok") return reject("hint", "load_failed", `env.py or oracle.py failed to load: ${played.message}`, { kind: played.kind });
  const wins = winningActions(played.value);
  const interfaceText = [candidate.manifest.description, ...played.value.map((episode) => episode.initialObservation)].join("\n");
  for (const { seed, value } of secretCandidates(wins, interfaceText)) {
    const match = hintContainsAnswer(hint, value);
    if (match !== null) {
      return reject("hint", "hint_leaks_answer", `the hint contains the oracle's action ${JSON.stringify(value.slice(0, 80))} of seed ${seed} (${match} match)`, { seed, answer: value.slice(0, 200), match });
    }
  }
  return pass("hint", { checked: wins.length, length: hint.length });
}
