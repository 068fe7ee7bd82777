import type { EvolutionAttemptRecord, Verdict } from "../../spec/index.js";
import { REVIEW_GATES } from "./reviewer.js";
import type { RubricStage } from "./rubrics.js";

/** A rubric candidate taken from a reviewed failure. */
export interface LearnedRubric {
  readonly stage: RubricStage;
  /** The reviewer's feedback that rejected the object. */
  readonly feedback: string;
  /** Where it came from, e.g. `lin-x g2 attempt 1, modification round 2`. */
  readonly source: string;
}

/**
 * The reviewer feedback of a failed attempt that a new rubric can be learned
 * from: the last `rubric_failed` rejection of the child reviewer (stage
 * `child`) or of the plan reviewer (stage `plan`); without `stage`, the child
 * stage is tried first. Null when the attempt holds no such rejection.
 */
export function reviewedFailure(attempt: EvolutionAttemptRecord, stage?: RubricStage): LearnedRubric | null {
  const rejected = (verdict: Verdict, wanted: RubricStage) =>
    verdict.status === "reject" && verdict.gate === REVIEW_GATES[wanted] && verdict.reason === "rubric_failed" ? verdict.message : null;
  const where = `${attempt.lineageId} g${attempt.generation} attempt ${attempt.attempt + 1}`;
  const stages: RubricStage[] = stage === undefined ? ["child", "plan"] : [stage];
  for (const wanted of stages) {
    if (wanted === "child") {
      for (let index = attempt.modification.length - 1; index >= 0; index -= 1) {
        for (const verdict of attempt.modification[index]?.verdicts ?? []) {
          const feedback = rejected(verdict, "child");
          if (feedback !== null) return { stage: "child", feedback, source: `${where}, modification round ${index + 1}` };
        }
      }
    } else {
      for (let index = attempt.planning.length - 1; index >= 0; index -= 1) {
        const review = attempt.planning[index]?.review;
        const feedback = review === undefined ? null : rejected(review, "plan");
        if (feedback !== null) return { stage: "plan", feedback, source: `${where}, planning round ${index + 1}` };
      }
    }
  }
  return null;
}
