import { pass, reject } from "../../../spec/index.js";
import { oraclePolicy } from "../../rollout/index.js";
import { controlEvidence, playControl, type TerminalGate } from "./terminal-gate.js";

/**
 * The oracle of a terminal task is `solution/solve.sh`: run in a fresh root, it must finish (exit
 * 0 within the command limit) and make the tests pass (reward 1). Reasons: `oracle_error` (no solve.sh, or the episode failed), `oracle_failed`.
 */
export function terminalOracleGate(): TerminalGate {
  return {
    name: "oracle",
    async check(task, context) {
      if (task.solutionDir === null) return reject("oracle", "oracle_error", "the task has no solution/solve.sh: the oracle of a terminal task is that script");
      const control = await playControl(task, context, (session) => oraclePolicy(session), "oracle/0");
      if (control.episode.failure !== undefined) return reject("oracle", "oracle_error", `the oracle's episode failed: ${control.episode.failure.message}`, controlEvidence(control));
      const solve = control.commands[0]?.result;
      if (solve !== undefined && (solve.timedOut || solve.exitCode !== 0)) {
        const why = solve.timedOut ? `ran past its ${Math.round(solve.ms / 1000)} s limit` : solve.exitCode === null ? "ended the shell" : `exited ${solve.exitCode}`;
        return reject("oracle", "oracle_failed", `solution/solve.sh ${why}: an oracle must finish cleanly, whatever the tests say`, controlEvidence(control));
      }
      if (!control.episode.won) {
        return reject("oracle", "oracle_failed", `solution/solve.sh did not make the tests pass (reward ${control.verification?.reward ?? "none"})`, controlEvidence(control));
      }
      return pass("oracle", { reward: control.verification?.reward, solveOutput: control.episode.turns[0]?.observation.slice(-400) });
    },
  };
}
