import { availableParallelism } from "node:os";
import type { AdmissionGateName } from "../../config/index.js";
import { reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { calibrationGate } from "./calibration-gate.js";
import { decontaminationGate } from "./decontamination-gate.js";
import { determinismGate } from "./determinism-gate.js";
import { executableGate } from "./executable-gate.js";
import type { AdmissionContext, AdmissionGate, AdmissionSettings } from "./gate.js";
import { hintGate } from "./hint-gate.js";
import { checkGate } from "./level-views.js";
import { levelsGate } from "./levels-gate.js";
import { negativeControlsGate } from "./negative-controls-gate.js";
import { exactCopyVerdict, noveltyGate } from "./novelty-gate.js";
import { oracleGate } from "./oracle-gate.js";
import { scorerContractGate } from "./scorer-contract-gate.js";
import { selfReviewGate } from "./self-review-gate.js";
import { staticGate } from "./static-gate.js";

/** Every gate by name: the one place that composes the pipeline. */
const GATES: Readonly<Record<AdmissionGateName, () => AdmissionGate>> = {
  static: staticGate,
  executable: executableGate,
  deterministic: determinismGate,
  oracle: oracleGate,
  "negative-controls": negativeControlsGate,
  "scorer-contract": scorerContractGate,
  hint: hintGate,
  levels: levelsGate,
  novelty: noveltyGate,
  decontamination: decontaminationGate,
  "self-review": selfReviewGate,
  calibration: calibrationGate,
};

/** The gate called `name`. */
export function createGate(name: AdmissionGateName): AdmissionGate {
  return GATES[name]();
}

/**
 * The configured pipeline: `settings.gates` in their order (default: all
 * twelve, cheapest first) without `settings.skip`.
 */
export function buildGates(settings: Pick<AdmissionSettings, "gates" | "skip">): AdmissionGate[] {
  return settings.gates.filter((name) => !settings.skip.includes(name)).map(createGate);
}

/** Outcome of {@link admit}: every verdict in order, `admitted` when all passed, wall time per gate run. */
export interface AdmissionResult {
  readonly admitted: boolean;
  readonly verdicts: readonly Verdict[];
  /** Milliseconds each gate that ran took, by gate name. */
  readonly timingsMs: Readonly<Record<string, number>>;
}

/** Options of {@link admit}. */
export interface AdmitOptions {
  /** Monotonic clock in milliseconds. @default performance.now */
  readonly clock?: () => number;
}

/**
 * Runs `gates` in order and stops at the first reject; per-level gates check
 * every declared level of a levelled family (`checkGate`). Before any gate, an
 * exact copy of a pool entry is rejected ({@link exactCopyVerdict}: whatever
 * gates are configured, so a copy never reaches memory, and cheaply). Never
 * throws for a bad candidate; an exception inside a gate (e.g. the model failed)
 * becomes a reject with reason `gate_error` so one candidate cannot stop a run.
 */
export async function admit(
  candidate: EnvPackage,
  gates: readonly AdmissionGate[],
  context: AdmissionContext,
  options: AdmitOptions = {},
): Promise<AdmissionResult> {
  const copy = exactCopyVerdict(candidate, context.pool ?? []);
  if (copy !== null) return { admitted: false, verdicts: [copy], timingsMs: {} };
  return runGates(candidate, gates, context, (gate) => checkGate(gate, candidate, context), options);
}

/**
 * The gate loop every admission pipeline shares (environment programs, terminal tasks): runs
 * `gates` in order with `check` and stops at the first reject; an exception inside a gate becomes a
 * reject with reason `gate_error`, so one candidate cannot stop a run. Times each gate.
 */
export async function runGates<Candidate, Context, Gate extends { readonly name: AdmissionGateName; check(candidate: Candidate, context: Context): Promise<Verdict> }>(
  candidate: Candidate,
  gates: readonly Gate[],
  context: Context,
  check: (gate: Gate) => Promise<Verdict> = (gate) => gate.check(candidate, context),
  options: AdmitOptions = {},
): Promise<AdmissionResult> {
  const clock = options.clock ?? (() => performance.now());
  const verdicts: Verdict[] = [];
  const timingsMs: Record<string, number> = {};
  for (const gate of gates) {
    const started = clock();
    let verdict: Verdict;
    try {
      verdict = await check(gate);
    } catch (error) {
      verdict = reject(gate.name, "gate_error", (error as Error).message);
    }
    timingsMs[gate.name] = Math.round((clock() - started) * 10) / 10;
    verdicts.push(verdict);
    if (verdict.status === "reject") return { admitted: false, verdicts, timingsMs };
  }
  return { admitted: true, verdicts, timingsMs };
}

/** Concurrency of `admission.concurrency`: the setting, or one per CPU core when 0. */
export function admissionConcurrency(settings: Pick<AdmissionSettings, "concurrency">): number {
  return settings.concurrency > 0 ? settings.concurrency : availableParallelism();
}

/**
 * Admits many candidates, at most `concurrency` at a time (each candidate's
 * gates still run in order). Results are in the order of `candidates`.
 */
export async function admitMany(
  candidates: readonly EnvPackage[],
  gates: readonly AdmissionGate[],
  context: AdmissionContext,
  concurrency: number,
  options: AdmitOptions = {},
): Promise<AdmissionResult[]> {
  // admit never throws for a candidate, so one bad candidate cannot stop the others
  return mapWithConcurrency(candidates, concurrency, (candidate) => admit(candidate, gates, context, options));
}
