import { z } from "zod";

/** The `reward` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const RewardSchema = z
  .object({
    /** Regret normaliser: regret_norm = min(regret / scale, 1) (SPADE). @default 0.15 */
    regretScale: z.number().positive().default(0.15),
    /** Weight of regret_norm in the Designer reward. @default 0.4 */
    regretWeight: z.number().min(0).default(0.4),
    /** Weight of the difficulty anchor in the Designer reward. @default 0.6 */
    anchorWeight: z.number().min(0).default(0.6),
    /** Lower edge of the anchor's flat top (no-hint win rate). @default 0.4 */
    anchorLow: z.number().min(0).max(1).default(0.4),
    /** Upper edge of the anchor's flat top. @default 0.6 */
    anchorHigh: z.number().min(0).max(1).default(0.6),
    /** Width of the anchor's linear decay outside the flat top. @default 0.25 */
    anchorWidth: z.number().positive().default(0.25),
    /** Designer reward of a completion that could not be parsed. @default -1 */
    unparseablePenalty: z.number().max(0).default(-1),
    /** Designer reward of a parsed design rejected by admission. @default -0.5 */
    rejectedPenalty: z.number().max(0).default(-0.5),
    /**
     * Designer reward mode: `regret-blend` (SPADE), `admission` (co-evolution), `learnability`
     * (Absolute Zero), `uncertainty` (R-Zero) or `learning-potential` (|fast − slow EMA| of the pass rate per skill). @default "regret-blend"
     */
    mode: z.enum(["regret-blend", "admission", "learnability", "uncertainty", "learning-potential"]).default("regret-blend"),
    /** Designer reward of a design rejected by semantic review or the novelty gate (`rejectedPenalty` covers mechanical gates). @default -0.5 */
    reviewRejectedPenalty: z.number().max(0).default(-0.5),
    /** `admission` mode: reward of a design that failed admission. @default -1 */
    admissionBroken: z.number().default(-1),
    /** `admission` mode: reward of an admitted design outside the calibration band. @default -0.25 */
    admissionOutsideBand: z.number().default(-0.25),
    /** `admission` mode: reward of an admitted design inside the band. @default 1 */
    admissionAdmitted: z.number().default(1),
    /** `admission` mode: exclusive lower edge of the calibration band (no-hint pass rate). @default 0 */
    admissionBandLow: z.number().min(0).max(1).default(0),
    /** `admission` mode: exclusive upper edge of the calibration band. @default 1 */
    admissionBandHigh: z.number().min(0).max(1).default(1),
    /** `learning-potential` mode: step size of the fast pass-rate EMA. @default 0.5 */
    learningPotentialFastRate: z.number().gt(0).max(1).default(0.5),
    /** `learning-potential` mode: step size of the slow pass-rate EMA. @default 0.1 */
    learningPotentialSlowRate: z.number().gt(0).max(1).default(0.1),
    /**
     * Solver reward added per invalid action (a turn whose `info` has `invalid_action: true`), after clipping
     * the return. Small, so a win outranks a clean loss up to 49 invalid actions, yet it separates the plays of
     * a group that no play wins (a learning signal for a model below an environment's frontier). @default -0.02
     */
    invalidActionPenalty: z.number().min(-1).max(0).default(-0.02),
    /** Solver reward added when the sandbox cut the episode (timeout, limits, crash), after clipping. @default 0 */
    sandboxCutPenalty: z.number().max(0).default(0),
  })
  .strict()
  .prefault({});
