import { z } from "zod";

/** The `advantages` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const AdvantagesSchema = z
  .object({
    /** Divide `r − mean(group)` by the group's standard deviation plus `stdEpsilon`. @default false */
    scaleByStd: z.boolean().default(false),
    /** Epsilon added to the group standard deviation when scaling. @default 1e-6 */
    stdEpsilon: z.number().positive().default(1e-6),
    /** Designer groups: designs answering one `prompt`, or designs of one `skill` group. @default "prompt" */
    designerGroupBy: z.enum(["prompt", "skill"]).default("prompt"),
    /** Cap on the Designer loss weight (kept Solver samples / kept Designer samples) (SPADE). @default 50 */
    designerWeightCap: z.number().min(1).default(50),
    /** Cap C of the truncated importance weight min(π_old/π_sample, C) (SPADE), 1e-6 to 1e6 (the trainer computes in float32). @default 2 */
    importanceCap: z.number().min(1e-6).max(1e6).default(2),
    /** Trainer loss: `ppo` or `importance_sampling`. @default "ppo" */
    lossKind: z.enum(["ppo", "importance_sampling"]).default("ppo"),
    /** Lower PPO clip threshold ε_low (SPADE). @default 0.2 */
    clipLow: z.number().min(0).max(1).default(0.2),
    /** Upper PPO clip threshold ε_high (SPADE). @default 0.28 */
    clipHigh: z.number().min(0).default(0.28),
  })
  .strict()
  .prefault({});
