import type { DesignRecord, Verdict } from "../../spec/index.js";

/** Runs and passes of one stage (parse, duplicate, or an admission gate) over designs. */
export interface StageCount {
  readonly ran: number;
  readonly passed: number;
}

/**
 * The design funnel of a set of designs (issue "design yield"; SPADE/EvoEnv report
 * the same staged pass rates): how many parsed, how far each got, and on which
 * attempt. Counts use each design's final verdicts; `admittedFirstAttempt` uses the
 * first attempt's (the design without repair turns).
 */
export interface DesignFunnel {
  readonly designs: number;
  /** Designs whose final completion parsed. */
  readonly parsed: number;
  /** Designs whose first completion parsed. */
  readonly parsedFirstAttempt: number;
  readonly admitted: number;
  readonly admittedFirstAttempt: number;
  /** `admitted / designs` (0 when there are no designs). */
  readonly admittedFraction: number;
  /** Final verdicts per stage, in the order stages first appear. */
  readonly perGate: Readonly<Record<string, StageCount>>;
  /** Attempts of every design (first attempts and repair turns). */
  readonly attempts: number;
  /** Verdicts per stage over every attempt, repaired ones included: how far attempts get, where `perGate` shows only where designs ended. */
  readonly perGateAttempts: Readonly<Record<string, StageCount>>;
  /** Admitted designs by the attempt that admitted them (`"0"` = first attempt). */
  readonly admittedOnTurn: Readonly<Record<string, number>>;
  /** Final reject reasons, `stage:reason` → count. */
  readonly rejections: Readonly<Record<string, number>>;
  /** Mean attempts per design (1 + repair turns taken). */
  readonly meanAttempts: number;
}

/** The {@link DesignFunnel} of stored designs. Pure. */
export function designFunnel(designs: readonly DesignRecord[]): DesignFunnel {
  const perGate: Record<string, { ran: number; passed: number }> = {};
  const perGateAttempts: Record<string, { ran: number; passed: number }> = {};
  const admittedOnTurn: Record<string, number> = {};
  const rejections: Record<string, number> = {};
  let parsed = 0;
  let parsedFirst = 0;
  let admitted = 0;
  let admittedFirst = 0;
  let attempts = 0;
  for (const design of designs) {
    const repairs = design.repairs ?? [];
    const first = repairs[0]?.verdicts ?? design.verdicts;
    attempts += repairs.length + 1;
    if (passedParse(design.verdicts)) parsed += 1;
    if (passedParse(first)) parsedFirst += 1;
    for (const verdict of design.verdicts) {
      count(perGate, verdict);
      if (verdict.status === "reject") rejections[`${verdict.gate}:${verdict.reason}`] = (rejections[`${verdict.gate}:${verdict.reason}`] ?? 0) + 1;
    }
    for (const verdict of [...repairs.flatMap((attempt) => attempt.verdicts), ...design.verdicts]) count(perGateAttempts, verdict);
    if (design.environmentId !== null) {
      admitted += 1;
      admittedOnTurn[String(repairs.length)] = (admittedOnTurn[String(repairs.length)] ?? 0) + 1;
      if (repairs.length === 0) admittedFirst += 1;
    }
  }
  return {
    designs: designs.length,
    parsed,
    parsedFirstAttempt: parsedFirst,
    admitted,
    admittedFirstAttempt: admittedFirst,
    admittedFraction: designs.length === 0 ? 0 : admitted / designs.length,
    perGate,
    attempts,
    perGateAttempts,
    admittedOnTurn,
    rejections,
    meanAttempts: designs.length === 0 ? 0 : attempts / designs.length,
  };
}

function count(stages: Record<string, { ran: number; passed: number }>, verdict: Verdict): void {
  const stage = (stages[verdict.gate] ??= { ran: 0, passed: 0 });
  stage.ran += 1;
  if (verdict.status === "pass") stage.passed += 1;
}

function passedParse(verdicts: readonly Verdict[]): boolean {
  return verdicts.some((verdict) => verdict.gate === "parse" && verdict.status === "pass");
}
