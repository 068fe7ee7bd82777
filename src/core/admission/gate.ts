import type { EnvPackage, Sandbox, Verdict } from "../../spec/index.js";

/** What every admission gate may use. */
export interface AdmissionContext {
  readonly sandbox: Sandbox;
  /** Episode seeds the gates probe with. */
  readonly seeds: readonly number[];
}

/**
 * One admission check with one job. Gates never throw for a bad candidate:
 * they return a reject {@link Verdict} with a stable reason code.
 */
export interface AdmissionGate {
  /** Gate name, e.g. `oracle`; the `gate` field of its verdicts. */
  readonly name: string;
  check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict>;
}
