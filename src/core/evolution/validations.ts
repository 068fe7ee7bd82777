import type { EditPlan, EnvPackage, LanguageModel, Verdict } from "../../spec/index.js";
import { reject } from "../../spec/index.js";
import { createGate, type AdmissionContext } from "../admission/index.js";
import { formatSequence } from "./planning-loop.js";
import { review, type RoleSettings } from "./reviewer.js";

/** What the validations of a child need. */
export interface ValidationContext {
  /**
   * The context the admission gates `oracle` and `negative-controls` check the
   * child under: the sandbox, the inspector and the admission settings with
   * `seeds` = the number of validation seeds (config `evolution.validationSeeds`).
   */
  readonly admission: AdmissionContext;
  readonly model: LanguageModel;
  /** Child rubrics (the `## Child` section of the rubric file). */
  readonly rubrics: readonly string[];
  readonly reviewer: RoleSettings;
}

/** Characters of each source file shown to the rubric reviewer. */
export const REVIEW_SOURCE_CHARS = 4000;

/** The text the rubric reviewer sees for a child: plan, manifest and both files (cut to {@link REVIEW_SOURCE_CHARS}). */
export function childReviewSubject(child: EnvPackage, plan: EditPlan): string {
  const cut = (source: string) => (source.length > REVIEW_SOURCE_CHARS ? `${source.slice(0, REVIEW_SOURCE_CHARS)}\n# … (cut)` : source);
  const { title, description, hint, skills, scenario, maxTurns } = child.manifest;
  return [
    `Plan: ${plan.summary}`,
    "Planned sequence:",
    formatSequence(plan.steps),
    "",
    `Child manifest: ${JSON.stringify({ title, description, hint, skills, scenario, maxTurns })}`,
    "env.py:",
    "```python",
    cut(child.envSource),
    "```",
    "oracle.py:",
    "```python",
    cut(child.oracleSource),
    "```",
  ].join("\n");
}

/**
 * The three validations of the modification loop (environment evolution:
 * oracle, invalid-test, rubric), run in parallel. The first two are admission
 * gates, not a second implementation: `oracle` (the oracle reaches the pass
 * threshold on every validation seed, every step reward in range) and
 * `negative-controls` (the invalid test: a do-nothing, a random and an
 * invalid-action agent all lose, and, with at least five seeds, no fixed
 * reply wins); the third is the rubric reviewer, which checks the child
 * against the plan and the child rubrics. Returns the three verdicts in that
 * order; never throws (a gate or reviewer that throws becomes a
 * `validation_error` reject).
 */
export async function validateChild(child: EnvPackage, plan: EditPlan, context: ValidationContext): Promise<Verdict[]> {
  const guard = (gate: string, run: () => Promise<Verdict>) =>
    run().catch((error: unknown) => reject(gate, "validation_error", (error as Error).message));
  return Promise.all([
    guard("oracle", () => createGate("oracle").check(child, context.admission)),
    guard("negative-controls", () => createGate("negative-controls").check(child, context.admission)),
    guard("rubric", () => review(context.model, "child", context.rubrics, childReviewSubject(child, plan), context.reviewer)),
  ]);
}
