import { z } from "zod";

/** The `levels` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const LevelsSchema = z
  .object({
    /**
     * How the Solver phase picks each episode's level in a levelled family (manifest `levels`).
     * `adaptive`: RLVE's controller, a window `[l, h]` per environment, levels sampled uniformly in it, `h`
     * raised once the accuracy at `h` reaches `accuracyThreshold` over `minSamples` episodes without the hint;
     * `static`: every episode at the family's `difficulty.staticLevel` (its size before levels; 0 when none).
     * @default "adaptive"
     */
    controller: z.enum(["adaptive", "static"]).default("adaptive"),
    /** τ_acc (RLVE): accuracy at the window's top level that raises it. @default 0.9 */
    accuracyThreshold: z.number().gt(0).max(1).default(0.9),
    /**
     * Episodes without the hint at the top level before the controller decides (RLVE's minimum number of
     * samples; envforge's laptop default: 8 is two rounds of the quick start's 4 plays). @default 8
     */
    minSamples: z.number().int().min(1).max(100_000).default(8),
    /** d (RLVE): most levels in an environment's window; the lowest level leaves as a new one enters. @default 4 */
    window: z.number().int().min(1).max(64).default(4),
  })
  .strict()
  .prefault({});
