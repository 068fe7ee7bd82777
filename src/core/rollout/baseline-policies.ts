import { renderToolCall, type EnvSession, type ToolDefinition } from "../../spec/index.js";
import type { Policy } from "./policy.js";
import { quotedOptions } from "./answer-extraction.js";

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

/**
 * A random tool-calling agent for a tool environment (admission's negative control): each turn,
 * with probability 0.8, one call of a random tool with arguments drawn from its JSON Schema
 * (required and optional properties; `enum`, `const`, integer and number bounds, string lengths
 * and booleans honoured; strings are the options the observation quotes, else its words, or random letters), written as the
 * `<tool_call>` markup a Solver writes; else a random final message (what {@link randomPolicy}
 * says). Most of its calls validate; one the schema refuses is a turn lost, as for a Solver.
 */
export function randomToolCallPolicy(tools: readonly ToolDefinition[], random: () => number): Policy {
  const text = randomPolicy(random);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const value = (schema: Record<string, unknown>, words: readonly string[], depth: number): unknown => {
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return pick(schema.enum);
    if ("const" in schema) return schema.const;
    const type = Array.isArray(schema.type) ? pick(schema.type as string[]) : schema.type;
    const low = typeof schema.minimum === "number" ? schema.minimum : 0;
    const high = typeof schema.maximum === "number" ? schema.maximum : low + 100;
    switch (type) {
      case "integer":
        return Math.ceil(low) + Math.floor(random() * (Math.floor(high) - Math.ceil(low) + 1));
      case "number":
        return low + random() * (high - low);
      case "boolean":
        return random() < 0.5;
      case "array":
        return depth > 2 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => value((schema.items as Record<string, unknown>) ?? {}, words, depth + 1));
      case "object":
        return depth > 2 ? {} : objectValue(schema, words, depth + 1);
      default: {
        const word = words.length > 0 && random() < 0.9 ? pick(words) : Array.from({ length: 1 + Math.floor(random() * 6) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join("");
        const min = typeof schema.minLength === "number" ? schema.minLength : 0;
        const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
        return word.padEnd(min, "x").slice(0, max);
      }
    }
  };
  const objectValue = (schema: Record<string, unknown>, words: readonly string[], depth: number): Record<string, unknown> => {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const result: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) if (required.has(name) || random() < 0.5) result[name] = value(property, words, depth);
    return result;
  };
  return {
    name: "random-tool-calls",
    async act(context) {
      if (tools.length === 0 || random() >= 0.8) return text.act(context);
      // the options the observation quotes ('alder') first, as a Solver reads them; else its words
      const quoted = quotedOptions(context.observation);
      const words = quoted.length > 0 ? quoted : context.observation.split(/[\s,.;:!?()'"]+/).filter((word) => word.length > 0 && word.length <= 40);
      const tool = pick(tools);
      return { text: renderToolCall({ name: tool.name, arguments: objectValue(tool.parameters, words, 0) }) };
    },
  };
}
