import type { EnvPackage } from "./env-package.js";
import type { Verdict } from "./verdict.js";

/**
 * Direction of one evolution step (environment evolution, off-policy):
 * `length` extends the chain (more steps, new dependencies), `scenario`
 * replaces scenarios and keeps the skills, `skill` replaces skills;
 * `level` (envforge, levelled families only) raises the level instead of
 * editing code: the child is the parent's program one level up (its level 0
 * is the parent's level 1), with no model call.
 */
export type EvolutionDirection = "length" | "scenario" | "skill" | "level";

/**
 * How much of the scenario–skill sequence one step may touch: `low` one
 * (scenario, skill) pair, `high` a contiguous span, `max` the whole sequence.
 */
export type EvolutionEffort = "low" | "high" | "max";

/** One step of an environment's execution: the situation (scenario) and what the agent must do in it (skill). */
export interface ScenarioSkillStep {
  readonly scenario: string;
  readonly skill: string;
}

/**
 * The alternating (scenario, skill) execution sequence of an environment, with
 * where it came from: `model` (extracted by the language model from the code
 * and an oracle trace), `manifest` (the fallback built from the manifest's
 * `scenario` and `skills` when the model gave nothing usable) or `plan` (an
 * evolved child: the target sequence of its reviewed edit plan).
 */
export interface ScenarioSkillSequence {
  readonly steps: readonly ScenarioSkillStep[];
  readonly source: "model" | "manifest" | "plan";
}

/**
 * Off-policy difficulty `D = L + Σ −log p(σ) + Σ −log p(κ | σ)` split into its
 * three terms (natural logarithms, so the surprise terms are in nats).
 */
export interface DifficultyBreakdown {
  /** L, the number of steps. */
  readonly length: number;
  /** Σ −log p(σ_i): scenario novelty. */
  readonly scenarioSurprise: number;
  /** Σ −log p(κ_i | σ_i): skill rarity given the scenario. */
  readonly skillSurprise: number;
  /** D, the sum of the three. */
  readonly total: number;
}

/** The sequence-level edit plan the Proposer wrote and the reviewer accepted. */
export interface EditPlan {
  /** What changes, in prose. */
  readonly summary: string;
  /** The target scenario–skill sequence of the child. */
  readonly steps: readonly ScenarioSkillStep[];
}

/** A lineage: one seed environment and the generations evolved from it. */
export interface LineageRecord {
  /** Stable id, `lin-<seed name>-<8 hex digits of the seed id>`. */
  readonly id: string;
  /** Content id of the seed environment (generation 0). */
  readonly seedId: string;
  readonly seedName: string;
  readonly seed: EnvPackage;
  /** The seed's scenario–skill sequence. */
  readonly sequence: ScenarioSkillSequence;
  /** The seed's difficulty when the lineage was created. */
  readonly difficulty: DifficultyBreakdown;
  /** ISO-8601 creation time. */
  readonly createdAt: string;
}

/** One validated, admitted generation of a lineage (generation ≥ 1). */
export interface GenerationRecord {
  readonly lineageId: string;
  /** 1-based position in the lineage. */
  readonly generation: number;
  /** Content id of the child environment. */
  readonly environmentId: string;
  /** Content id of the parent (the seed for generation 1). */
  readonly parentId: string;
  readonly direction: EvolutionDirection;
  readonly effort: EvolutionEffort;
  readonly plan: EditPlan;
  /** Unified diff from the parent's files to the child's (`env.json`, `env.py`, `oracle.py`). */
  readonly patch: string;
  /** Oracle, invalid-test and rubric verdicts of the accepted modification round. */
  readonly validations: readonly Verdict[];
  /** Verdicts of the admission pipeline (without calibration). */
  readonly admission: readonly Verdict[];
  readonly sequence: ScenarioSkillSequence;
  readonly difficulty: DifficultyBreakdown;
  /** ISO-8601 creation time. */
  readonly createdAt: string;
}

/** How one attempt at the next generation ended. */
export type EvolutionOutcome = "validated" | "plan_rejected" | "validation_failed" | "admission_rejected" | "model_error";

/** One round of the planning loop: the Proposer's reply and the reviewer's verdict. */
export interface PlanningRound {
  readonly completion: string;
  readonly plan: EditPlan | null;
  readonly review: Verdict;
}

/** One round of the modification loop: the Modifier's reply and the validations of the child it produced. */
export interface ModificationRound {
  readonly completion: string;
  /** `patch`, `files`, `replace` (search/replace blocks), or null when nothing could be applied. */
  readonly form: "patch" | "files" | "replace" | null;
  readonly verdicts: readonly Verdict[];
}

/** Every attempt at a generation, successful or not, kept for review and rubric learning. */
export interface EvolutionAttemptRecord {
  readonly lineageId: string;
  /** The generation the attempt tried to create. */
  readonly generation: number;
  /** 0-based attempt number for this generation. */
  readonly attempt: number;
  readonly direction: EvolutionDirection;
  readonly effort: EvolutionEffort;
  readonly outcome: EvolutionOutcome;
  readonly planning: readonly PlanningRound[];
  readonly modification: readonly ModificationRound[];
  /** Admission verdicts, when admission ran. */
  readonly admission: readonly Verdict[];
  /** Seconds the attempt took. */
  readonly seconds: number;
}

/**
 * One frontier probe: `rollouts` Solver episodes (no hint) on `generation` of
 * a lineage during training round `round`; `released` when the wins reached
 * the release threshold and the frontier moved to the next generation.
 */
export interface FrontierProbeRecord {
  readonly lineageId: string;
  readonly generation: number;
  readonly round: number;
  readonly rollouts: number;
  readonly wins: number;
  readonly released: boolean;
}
