/**
 * Other readings of a hint in which an answer may be spelled out: number
 * words as digits, digits separated by spaces or punctuation joined. The hint
 * gate looks for the oracle's answers in every reading (and reversed).
 */

const UNITS: Readonly<Record<string, number>> = {
  zero: 0, nought: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const SCALES: Readonly<Record<string, number>> = { thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

/** One number being read from consecutive number words. */
interface NumberReading {
  /** Completed thousands groups (e.g. 4000 after "four thousand"). */
  total: number;
  /** The group below the last scale word (e.g. 172 of "one hundred seventy two"). */
  group: number;
  /** The last word's kind, to tell "forty two" (one number) from "four two" (two). */
  last: "unit" | "teen" | "tens" | "hundred" | "scale";
}

/**
 * The hint with number words written as digits: "forty-two" → "42", "four
 * thousand one hundred and seventy-two" → "4172", and words that cannot
 * continue the number before them start a new one, so "four one seven two" →
 * "4 1 7 2"; with `joinGroups`, such numbers separated only by spaces or hyphens are joined as
 * spoken digit groups ("eight twenty-three" → "823", "four one seven two" → "4172").
 * Case-insensitive; "and" inside a number is read ("one hundred and five" → "105").
 * Text that is not a number word is kept as it is.
 */
export function numberWordsAsDigits(text: string, options: { readonly joinGroups?: boolean } = {}): string {
  const parts = text.split(/(\p{L}+)/u);
  const out: string[] = [];
  let reading: NumberReading | null = null;
  let pending: string[] = [];
  const flush = () => {
    if (reading !== null) out.push(String(reading.total + reading.group));
    out.push(...pending);
    reading = null;
    pending = [];
  };
  for (const [index, part] of parts.entries()) {
    const isWord = index % 2 === 1;
    if (!isWord) {
      // separators inside a number ("forty-two", "seventy two") stay pending until the next word decides
      if (reading !== null && /^[\s-]*$/.test(part)) pending.push(part);
      else {
        flush();
        out.push(part);
      }
      continue;
    }
    const word = part.toLowerCase();
    if (reading !== null && word === "and") {
      pending.push(part);
      continue;
    }
    const next = extend(reading, word);
    if (next === "new" && options.joinGroups === true && reading !== null && pending.every((gap) => /^[\s-]*$/.test(gap)) && start(word) !== null) {
      // spoken digit groups: "eight twenty-three" → "823", "nineteen eighty-four" → "1984"
      out.push(String((reading as NumberReading).total + (reading as NumberReading).group));
      pending = [];
      reading = start(word);
    } else if (next === "new") {
      flush();
      reading = start(word);
      if (reading === null) out.push(part);
    } else if (next === null) {
      flush();
      out.push(part);
    } else {
      reading = next;
      pending = [];
    }
  }
  flush();
  return out.join("");
}

function start(word: string): NumberReading | null {
  if (word in UNITS) return { total: 0, group: UNITS[word] ?? 0, last: (UNITS[word] ?? 0) >= 10 ? "teen" : "unit" };
  if (word in TENS) return { total: 0, group: TENS[word] ?? 0, last: "tens" };
  return null;
}

/** The reading continued by `word`; "new" when `word` is a number word that starts another number; null when it is no number word. */
function extend(reading: NumberReading | null, word: string): NumberReading | "new" | null {
  const isNumberWord = word in UNITS || word in TENS || word === "hundred" || word in SCALES;
  if (!isNumberWord) return null;
  if (reading === null) return word === "hundred" || word in SCALES ? null : "new";
  if (word === "hundred") {
    return reading.last === "unit" || reading.last === "teen" ? { ...reading, group: reading.group * 100, last: "hundred" } : "new";
  }
  const scale = SCALES[word];
  if (scale !== undefined) {
    return reading.last === "scale" ? "new" : { total: reading.total + reading.group * scale, group: 0, last: "scale" };
  }
  const value = UNITS[word] ?? TENS[word] ?? 0;
  const kind = word in TENS ? "tens" : value >= 10 ? "teen" : "unit";
  // a unit after tens ("forty two"), anything after hundred or a scale ("one hundred five", "thousand twelve")
  const joins = (reading.last === "tens" && kind === "unit" && value > 0) || reading.last === "hundred" || (reading.last === "scale" && reading.group === 0);
  return joins ? { ...reading, group: reading.group + value, last: kind } : "new";
}

/**
 * The hint with runs of single digits separated by spaces or punctuation
 * joined: "4 1 7 2", "4-1-7-2", "4.1.7.2" and "4, 1, 7, 2" → "4172". A run
 * needs at least two digits, each standing alone (not part of a longer number);
 * a run separated by commas or semicolons needs three, so that an ordinary short
 * list ("sizes 2, 4 and 8") is not read as the number 24.
 */
export function spacedDigitsJoined(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}])\p{Nd}(?:[\s.,;:/|_*+-]{1,3}\p{Nd}(?![\p{N}]))+(?![\p{L}\p{N}])/gu, (run) => {
    const digits = run.replace(/[^\p{Nd}]/gu, "");
    return /[,;]/.test(run) && digits.length < 3 ? run : digits;
  });
}

/** The readings of a hint that the hint gate searches: as written, number words as digits (and as spoken digit groups joined), and with spaced digits joined (distinct, in that order). */
export function hintReadings(hint: string): { readonly kind: "as_written" | "number_words" | "spaced_digits"; readonly text: string }[] {
  const words = numberWordsAsDigits(hint);
  const readings = [
    { kind: "as_written" as const, text: hint },
    { kind: "number_words" as const, text: words },
    { kind: "number_words" as const, text: numberWordsAsDigits(hint, { joinGroups: true }) },
    { kind: "spaced_digits" as const, text: spacedDigitsJoined(words) },
  ];
  return readings.filter((reading, index) => readings.findIndex((other) => other.text === reading.text) === index);
}
