import { pass, reject } from "../../../spec/index.js";
import { terminalHint } from "../../terminal/terminal-environment.js";
import { hintContainsAnswer, secretCandidates } from "../hint-gate.js";
import type { TerminalGate } from "./terminal-gate.js";

/** Fewest non-blank characters of a solution line the hint gate looks for (shorter ones are syntax: `fi`, `done`, a here-document's `END`). */
export const MIN_SOLUTION_LINE_CHARS = 8;

/**
 * The lines of `solution/solve.sh` a hint must not give away: every line of at least
 * {@link MIN_SOLUTION_LINE_CHARS} non-blank characters that is not a comment (the shebang included).
 */
export function solutionCommands(solution: string): string[] {
  return solution
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => !line.startsWith("#") && line.replace(/\s+/g, "").length >= MIN_SOLUTION_LINE_CHARS);
}

/**
 * The hint gate for terminal tasks (the program gate's name and reasons): a task that carries a
 * hint (`[metadata] hint` in task.toml, which the Solver's with-hint plays see) must keep it between
 * `admission.hintMinChars` and `admission.hintMaxChars`, and it must not give away a line of
 * `solution/solve.sh` that the instruction does not already show ({@link secretCandidates},
 * matched as the program gate matches the oracle's actions: {@link hintContainsAnswer}). A task
 * without a hint passes (Harbor tasks need not carry one; its with-hint plays then see the line
 * "(this task has no hint)", so its regret compares two conditions without advice). A hint that
 * gives the tests' expected values without quoting a solution line is not caught. Reasons: `hint_length`, `hint_leaks_answer`.
 */
export function terminalHintGate(): TerminalGate {
  return {
    name: "hint",
    async check(task, context) {
      const hint = terminalHint(task);
      if (hint === null) return pass("hint", { hint: null });
      const { hintMinChars, hintMaxChars } = context.settings;
      if (hint.length < hintMinChars || hint.length > hintMaxChars) {
        return reject("hint", "hint_length", `the hint has ${hint.length} characters; allowed ${hintMinChars}..${hintMaxChars}`, { length: hint.length });
      }
      const commands = solutionCommands(task.solution ?? "");
      for (const { value } of secretCandidates([{ seed: 0, actions: commands }], task.instruction)) {
        const match = hintContainsAnswer(hint, value, { stripLabel: false });
        if (match !== null) {
          return reject("hint", "hint_leaks_answer", `the hint contains the line ${JSON.stringify(value.slice(0, 80))} of solution/solve.sh (${match} match)`, { answer: value.slice(0, 200), match });
        }
      }
      return pass("hint", { checked: commands.length, length: hint.length });
    },
  };
}
