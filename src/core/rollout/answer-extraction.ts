/**
 * The answer in a model's reply, taken as SPADE takes it for Reasoning Gym
 * (`RG_STRICT_EXTRACT`): the content of the last `<answer>…</answer>`, trimmed; else the
 * content of the last `\boxed{…}` (braces balanced, so `\boxed{\frac{1}{2}}` gives
 * `\frac{1}{2}`); else null (no readable answer, counted as an invalid action).
 */
export function extractAnswer(reply: string): string | null {
  const tagged = [...reply.matchAll(/<answer>([\s\S]*?)<\/answer>/gi)].at(-1);
  if (tagged !== undefined) return (tagged[1] ?? "").trim();
  return lastBoxed(reply);
}

/**
 * The options an observation quotes, in order: the text inside each `'…'` or `"…"` of 1 to 40
 * characters on one line (`Reply 'inc' or 'dec'` gives `inc`, `dec`). Admission's probes and
 * random agents read an environment's moves from them, as a Solver would.
 */
export function quotedOptions(observation: string): string[] {
  return [...observation.matchAll(/'([^'\n]{1,40})'|"([^"\n]{1,40})"/g)].map((match) => match[1] ?? match[2] ?? "");
}

/** Content of the last `\boxed{…}` with balanced braces, or null. */
function lastBoxed(reply: string): string | null {
  const marker = "\\boxed{";
  let from = reply.lastIndexOf(marker);
  while (from >= 0) {
    const start = from + marker.length;
    let depth = 1;
    for (let index = start; index < reply.length; index += 1) {
      const char = reply[index];
      if (char === "{") depth += 1;
      else if (char === "}") {
        depth -= 1;
        if (depth === 0) return reply.slice(start, index).trim();
      }
    }
    // unbalanced (cut off at the token limit): try an earlier one
    from = from === 0 ? -1 : reply.lastIndexOf(marker, from - 1);
  }
  return null;
}
