import { extractCodeBlocks } from "../selfplay/index.js";

/**
 * The first JSON value of the wanted kind in a model completion: fenced blocks
 * first, then the whole text, then the span from the first opening bracket to
 * the last closing one. Untrusted text: never throws, returns undefined.
 *
 * @param kind `object` or `array`
 */
export function findJson(completion: string, kind: "object" | "array"): unknown {
  const [open, close] = kind === "object" ? ["{", "}"] : ["[", "]"];
  const candidates = extractCodeBlocks(completion).map((block) => block.body);
  candidates.push(completion);
  const first = completion.indexOf(open);
  const last = completion.lastIndexOf(close);
  if (first >= 0 && last > first) candidates.push(completion.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (kind === "array" ? Array.isArray(value) : value !== null && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
      // not JSON; try the next candidate
    }
  }
  return undefined;
}
