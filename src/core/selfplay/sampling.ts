import { createHash } from "node:crypto";
import type { EnvironmentRecord } from "../../spec/index.js";

/**
 * A 32-bit seed derived from parts (run seed, round, purpose, index) by sha256,
 * so every random choice of a round is reproducible on resume regardless of
 * which steps already ran.
 */
export function deriveSeed(...parts: readonly (string | number)[]): number {
  return createHash("sha256").update(parts.join("/")).digest().readUInt32BE(0);
}

/** `count` distinct items drawn uniformly (partial Fisher–Yates); all of them when count ≥ length. */
export function sampleWithoutReplacement<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const taken: T[] = [];
  while (taken.length < count && pool.length > 0) {
    const index = Math.floor(random() * pool.length);
    taken.push(pool.splice(index, 1)[0] as T);
  }
  return taken;
}

/**
 * Memory examples for the Designer prompt: highest designer reward first; seed
 * environments (no reward yet) after scored ones, in random order.
 */
export function rankExamples(memory: readonly EnvironmentRecord[], count: number, random: () => number): EnvironmentRecord[] {
  const keyed = memory.map((record) => ({ record, reward: record.scores?.designerReward ?? Number.NEGATIVE_INFINITY, tie: random() }));
  keyed.sort((a, b) => b.reward - a.reward || a.tie - b.tie);
  return keyed.slice(0, count).map((entry) => entry.record);
}
