import type { EvolutionDirection, EvolutionEffort } from "../../spec/index.js";

/** The three evolution directions of code edits (the ones `mixed` draws from; `level` raises a levelled family's level instead). */
export const DIRECTIONS: readonly EvolutionDirection[] = ["length", "scenario", "skill"];

/** A direction, or `mixed`: a policy that picks one per generation. */
export type DirectionChoice = EvolutionDirection | "mixed";

/** Steps of a sequence an edit may touch: indices `start` .. `end − 1`. */
export interface EditSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * The span an edit of `effort` may touch in a sequence of `length` steps
 * (environment evolution: effort `low` = one scenario–skill pair, `high` = a
 * contiguous span, `max` = unbounded). `low` picks one step; `high` a
 * contiguous span of 2 to ⌈length / 2⌉ + 1 steps (capped at the length);
 * `max` the whole sequence. An empty sequence gives the empty span at 0.
 *
 * @param random uniform numbers in [0, 1)
 */
export function editSpan(effort: EvolutionEffort, length: number, random: () => number): EditSpan {
  if (length <= 0) return { start: 0, end: 0 };
  if (effort === "max") return { start: 0, end: length };
  const maxSize = effort === "low" ? 1 : Math.min(length, Math.ceil(length / 2) + 1);
  const minSize = effort === "low" ? 1 : Math.min(length, 2);
  const size = minSize + Math.floor(random() * (maxSize - minSize + 1));
  const start = Math.floor(random() * (length - size + 1));
  return { start, end: start + size };
}

/**
 * The direction of one generation. A fixed direction is returned as is; the
 * `mixed` policy draws uniformly among the directions other than the
 * previous generation's (so a lineage alternates), and among all three for
 * the first generation.
 *
 * @param previous direction of the parent's generation, or null for the seed
 * @param random uniform numbers in [0, 1)
 */
export function chooseDirection(choice: DirectionChoice, previous: EvolutionDirection | null, random: () => number): EvolutionDirection {
  if (choice !== "mixed") return choice;
  const options = DIRECTIONS.filter((direction) => direction !== previous);
  return options[Math.floor(random() * options.length)] as EvolutionDirection;
}

/** What a direction asks of the Proposer and the Modifier, in words. */
export function directionInstruction(direction: EvolutionDirection, effort: EvolutionEffort, span: EditSpan): string {
  const where =
    effort === "max"
      ? "You may change any part of the sequence."
      : span.end - span.start === 1
        ? `Change only step ${span.start + 1}.`
        : `Change only steps ${span.start + 1} to ${span.end}.`;
  // one short worked example per direction: small models copy the sequence unchanged without one (envforge evolve, 1.5B)
  switch (direction) {
    case "length":
      return `Direction LENGTH: make the task longer. Extend the chain with new steps that depend on earlier results (add dependencies), keeping every existing step solvable. ${where} New steps go after the span; keep the steps outside the span as they are.\nExample: "1. scenario: a shopping list | skill: add the prices" becomes "1. scenario: a shopping list | skill: add the prices" and "2. scenario: a discount on the total | skill: compute a percentage".`;
    case "scenario":
      return `Direction SCENARIO: replace the scenarios (the situations) with different, less common ones, and keep the same skills in the same order and the same number of steps. ${where} Keep the other steps exactly as they are.\nExample: "1. scenario: a shopping list | skill: add the prices" becomes "1. scenario: a ship's cargo manifest | skill: add the prices".`;
    case "skill":
      return `Direction SKILL: replace the skills the agent needs with different, rarer ones, and keep the scenarios and the number of steps. ${where} Keep the other steps exactly as they are.\nExample: "1. scenario: a shopping list | skill: add the prices" becomes "1. scenario: a shopping list | skill: find the median price".`;
    case "level":
      return "Direction LEVEL: keep the program and make the family's easiest level its next one (no code edit).";
  }
}
