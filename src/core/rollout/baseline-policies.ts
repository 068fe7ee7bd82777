import type { EnvSession } from "../../spec/index.js";
import type { Policy } from "./policy.js";
import { renderToolCall } from "./tool-calls.js";

/**
 * The privileged reference policy: asks the loaded `oracle.py` for each action.
 * @throws Error from `act` when the oracle call fails (the episode records it)
 */
export function oraclePolicy(session: EnvSession): Policy {
  return {
    name: "oracle",
    async act({ observation }) {
      const outcome = await session.oracleAction(observation);
      if (outcome.kind !== "ok") throw new Error(`oracle ${outcome.kind}: ${outcome.message}`);
      // a tool environment's oracle answers a call: the transcript holds it as the markup a Solver writes
      return { text: typeof outcome.value === "string" ? outcome.value : renderToolCall(outcome.value) };
    },
  };
}

/** The do-nothing policy: always the empty action. An environment this policy wins is broken. */
export const doNothingPolicy: Policy = {
  name: "do-nothing",
  async act() {
    return { text: "" };
  },
};

/**
 * A random policy: random integers, integer lists, letters and words taken from
 * the observation, drawn from `random` (a function returning [0, 1)).
 */
export function randomPolicy(random: () => number): Policy {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const integer = () => Math.floor(random() * 1000);
  return {
    name: "random",
    async act({ observation }) {
      const words = observation.split(/\s+/).filter((word) => word.length > 0);
      const makers = [
        () => String(integer()),
        () => [integer(), integer(), integer()].join(","),
        () => Array.from({ length: 1 + Math.floor(random() * 6) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(""),
        () => (words.length > 0 ? pick(words) : "?"),
        () => pick(["up", "down", "left", "right", "look", "yes", "no"]),
      ];
      return { text: pick(makers)() };
    },
  };
}

/**
 * Deterministic 32-bit PRNG (mulberry32) returning floats in [0, 1); used where
 * randomness must be injected and reproducible.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
