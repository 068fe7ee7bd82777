import type { EnvPackage, Verdict } from "../../spec/index.js";
import { executableGate } from "./executable-gate.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { doNothingGate, oracleGate } from "./policy-gates.js";
import { staticGate } from "./static-gate.js";

/** The default minimal pipeline, cheapest first: static, executable, oracle, do-nothing. */
export function defaultGates(): AdmissionGate[] {
  return [staticGate(), executableGate(), oracleGate(), doNothingGate()];
}

/** Outcome of {@link admit}: every verdict in order; `admitted` when all passed. */
export interface AdmissionResult {
  readonly admitted: boolean;
  readonly verdicts: readonly Verdict[];
}

/**
 * Runs `gates` in order and stops at the first reject. Never throws for a bad
 * candidate; an unexpected exception inside a gate becomes a reject with reason
 * `gate_error` so one candidate cannot stop a run.
 */
export async function admit(candidate: EnvPackage, gates: readonly AdmissionGate[], context: AdmissionContext): Promise<AdmissionResult> {
  const verdicts: Verdict[] = [];
  for (const gate of gates) {
    let verdict: Verdict;
    try {
      verdict = await gate.check(candidate, context);
    } catch (error) {
      verdict = { status: "reject", gate: gate.name, reason: "gate_error", message: (error as Error).message };
    }
    verdicts.push(verdict);
    if (verdict.status === "reject") return { admitted: false, verdicts };
  }
  return { admitted: true, verdicts };
}
