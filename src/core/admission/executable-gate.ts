import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";

/** Probe actions sent to a fresh episode of every seed. */
export const PROBE_ACTIONS: readonly string[] = ["1", "test", "", "ünïcødé →"];

/**
 * The program loads, `reset` runs for every probe seed, and `step` accepts
 * each probe action without failing (rewards finite, types right: the sandbox
 * checks those). Reason codes: `load_failed`, `reset_failed`, `step_failed`,
 * each with the sandbox's failure kind and traceback in the evidence.
 */
export function executableGate(): AdmissionGate {
  return {
    name: "executable",
    async check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
      for (const seed of context.seeds) {
        for (const action of PROBE_ACTIONS) {
          const opened = await context.sandbox.open({ envSource: candidate.envSource, oracleSource: null });
          if (opened.kind !== "ok") {
            return reject("executable", "load_failed", `env.py failed to load: ${opened.message}`, { kind: opened.kind, detail: opened.detail });
          }
          const session = opened.value;
          try {
            const reset = await session.reset(seed);
            if (reset.kind !== "ok") {
              return reject("executable", "reset_failed", `reset(${seed}) failed: ${reset.message}`, { kind: reset.kind, seed, detail: reset.detail });
            }
            const step = await session.step(action);
            if (step.kind !== "ok") {
              return reject("executable", "step_failed", `step(${JSON.stringify(action)}) failed: ${step.message}`, {
                kind: step.kind,
                seed,
                action,
                detail: step.detail,
              });
            }
          } finally {
            await session.close();
          }
        }
      }
      return pass("executable", { seeds: context.seeds.length, probes: PROBE_ACTIONS.length });
    },
  };
}
