import type { RejectVerdict } from "../../spec/index.js";

/** What a fixture of the broken-environment corpus must be rejected by; null gate = a good environment that must be admitted. */
export interface FixtureLabel {
  readonly gate: string | null;
  readonly reason: string | null;
}

/** How one fixture (or seed) fared. */
export interface FixtureOutcome {
  readonly fixture: string;
  readonly label: FixtureLabel;
  /** The rejecting verdict, or null when admitted. */
  readonly rejectedBy: RejectVerdict | null;
}

/**
 * The `envforge admit --eval` report. `fixtures` counts broken fixtures whose
 * labelled gate ran; `detected` those rejected by that gate with that reason;
 * `missed` the rest; `falseRejections` the good environments (seeds and
 * fixtures labelled with no gate) that were rejected; `perGate` the counts by
 * labelled gate; `skipped` broken fixtures whose labelled gate was not run
 * (model-based gates without a model, or gates left out by `--gates`/`--skip`).
 */
export interface EvaluationReport {
  readonly fixtures: number;
  readonly detected: number;
  readonly missed: readonly { readonly fixture: string; readonly expected: string; readonly got: string }[];
  readonly falseRejections: readonly { readonly fixture: string; readonly gate: string; readonly reason: string; readonly message: string }[];
  readonly perGate: Readonly<Record<string, { readonly expected: number; readonly detected: number }>>;
  readonly skipped: readonly string[];
}

/**
 * Scores fixture outcomes against their labels.
 * @param gatesRun names of the gates the pipeline ran (fixtures labelled with another gate are skipped)
 */
export function scoreEvaluation(outcomes: readonly FixtureOutcome[], gatesRun: readonly string[]): EvaluationReport {
  const missed: EvaluationReport["missed"][number][] = [];
  const falseRejections: EvaluationReport["falseRejections"][number][] = [];
  const perGate: Record<string, { expected: number; detected: number }> = {};
  const skipped: string[] = [];
  let fixtures = 0;
  let detected = 0;
  for (const { fixture, label, rejectedBy } of outcomes) {
    if (label.gate === null) {
      if (rejectedBy !== null) falseRejections.push({ fixture, gate: rejectedBy.gate, reason: rejectedBy.reason, message: rejectedBy.message.slice(0, 300) });
      continue;
    }
    if (!gatesRun.includes(label.gate)) {
      skipped.push(fixture);
      continue;
    }
    fixtures += 1;
    const entry = (perGate[label.gate] ??= { expected: 0, detected: 0 });
    entry.expected += 1;
    if (rejectedBy !== null && rejectedBy.gate === label.gate && rejectedBy.reason === label.reason) {
      detected += 1;
      entry.detected += 1;
    } else {
      missed.push({ fixture, expected: `${label.gate}/${label.reason}`, got: rejectedBy === null ? "admitted" : `${rejectedBy.gate}/${rejectedBy.reason}` });
    }
  }
  return { fixtures, detected, missed, falseRejections, perGate, skipped };
}
