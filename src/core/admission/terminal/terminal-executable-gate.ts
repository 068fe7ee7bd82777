import { pass, reject } from "../../../spec/index.js";
import type { TerminalGate } from "./terminal-gate.js";

/**
 * A terminal task's root can be prepared (the image builds, every set-up step succeeds) and its
 * tests, run on the fresh root, write a reward. Reasons: `setup_failed`, `no_reward`.
 */
export function terminalExecutableGate(): TerminalGate {
  return {
    name: "executable",
    async check(task, context) {
      const opened = await context.runtime.open(task);
      if (opened.kind !== "ok") return reject("executable", "setup_failed", opened.message, opened.detail === undefined ? {} : { output: opened.detail });
      try {
        const verification = await opened.value.verify();
        if (verification.reward === null) {
          const why = verification.timedOut ? `the tests timed out after ${task.verifierTimeoutSec} s` : (verification.rewardError ?? "no reward");
          return reject("executable", "no_reward", `the tests on the fresh root gave no reward: ${why}`, { testsOutput: verification.output.slice(-800) });
        }
        return pass("executable", { rewardBeforeAgent: verification.reward, testsMs: verification.ms });
      } finally {
        await opened.value.close();
      }
    },
  };
}
