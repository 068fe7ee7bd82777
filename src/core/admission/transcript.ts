import type { EnvSession } from "../../spec/index.js";

/** Actions of a transcript probe on seed `seed` (fixed, seed-dependent so instances are explored differently). */
export function transcriptActions(seed: number): string[] {
  return ["1", String(seed % 10), "test", "a", "2", "up", "look", "0"];
}

/** Longest transcript in steps. */
export const TRANSCRIPT_STEPS = 6;

/**
 * The full transcript of one short episode: the reset observation, then for
 * each scripted action the observation, reward, flags and info, as one JSON
 * string per entry. A sandbox failure ends the transcript with its kind and message.
 */
export async function recordTranscript(session: EnvSession, seed: number, maxTurns: number): Promise<string[]> {
  const entries: string[] = [];
  const reset = await session.reset(seed);
  if (reset.kind !== "ok") return [`reset failed: ${reset.kind}: ${reset.message}`];
  entries.push(JSON.stringify({ reset: reset.value }));
  const actions = transcriptActions(seed);
  for (let turn = 0; turn < Math.min(maxTurns, TRANSCRIPT_STEPS); turn += 1) {
    const step = await session.step(actions[turn % actions.length] ?? "");
    if (step.kind !== "ok") {
      entries.push(`step failed: ${step.kind}: ${step.message}`);
      break;
    }
    entries.push(JSON.stringify(step.value));
    if (step.value.terminated || step.value.truncated) break;
  }
  return entries;
}
