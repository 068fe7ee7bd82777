import type { SHARED_REASONS, VERDICT_REASONS, VerdictGate, VerdictReason } from "./verdict-reasons.js";

/**
 * The outcome of checking one untrusted thing (a design completion, a candidate
 * environment) against one admission gate or parser. Expected failures are
 * values of this type, never exceptions.
 */
export type Verdict = PassVerdict | RejectVerdict;

/** The candidate passed `gate`. */
export interface PassVerdict {
  readonly status: "pass";
  /** Name of the gate or stage, e.g. `oracle`. */
  readonly gate: string;
  /** Optional measurements the gate took (rates, timings). */
  readonly evidence?: Readonly<Record<string, unknown>>;
}

/** The candidate failed `gate` for `reason`. */
export interface RejectVerdict {
  readonly status: "reject";
  /** Name of the gate or stage, e.g. `oracle`. */
  readonly gate: string;
  /** Stable reason code, e.g. `oracle_failed`; counted in reports. */
  readonly reason: string;
  /** Human explanation. */
  readonly message: string;
  /** What the gate saw (seeds, returns, tracebacks), kept with the candidate. */
  readonly evidence?: Readonly<Record<string, unknown>>;
}

/** Builds a pass verdict. */
export function pass(gate: string, evidence?: Record<string, unknown>): PassVerdict {
  return evidence === undefined ? { status: "pass", gate } : { status: "pass", gate, evidence };
}

/**
 * Builds a reject verdict. The reason must be one `gate` gives in {@link VERDICT_REASONS} (or a
 * shared one, {@link SHARED_REASONS}), so every reason code the code can produce is in that list.
 */
export function reject<G extends VerdictGate>(
  gate: G,
  reason: VerdictReason<G>,
  message: string,
  evidence?: Record<string, unknown>,
): RejectVerdict {
  return evidence === undefined
    ? { status: "reject", gate, reason, message }
    : { status: "reject", gate, reason, message, evidence };
}
