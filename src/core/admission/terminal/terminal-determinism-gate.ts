import { pass, reject } from "../../../spec/index.js";
import { oraclePolicy } from "../../rollout/index.js";
import { playControl, type TerminalGate } from "./terminal-gate.js";
import { finishAtOncePolicy } from "./terminal-policies.js";

/** Times each control is repeated. */
const REPEATS = 2;

/**
 * The tests of a terminal task are deterministic: the oracle's episode and the empty episode, each
 * repeated on fresh roots, give the same reward every time. Reason: `nondeterministic`.
 */
export function terminalDeterminismGate(): TerminalGate {
  return {
    name: "deterministic",
    async check(task, context) {
      const runs: Record<string, (number | null)[]> = { oracle: [], empty: [] };
      for (let repeat = 0; repeat < REPEATS; repeat += 1) {
        if (task.solutionDir !== null) runs.oracle?.push((await playControl(task, context, (session) => oraclePolicy(session), `oracle/${repeat}`)).verification?.reward ?? null);
        runs.empty?.push((await playControl(task, context, () => finishAtOncePolicy, `empty/${repeat}`)).verification?.reward ?? null);
      }
      for (const [agent, rewards] of Object.entries(runs)) {
        if (new Set(rewards).size > 1) return reject("deterministic", "nondeterministic", `the ${agent} episode's reward changed between fresh roots: ${rewards.map((reward) => reward ?? "none").join(", ")}`, { rewards: runs });
      }
      return pass("deterministic", { rewards: runs });
    },
  };
}
