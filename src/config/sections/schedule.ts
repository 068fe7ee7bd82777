import { z } from "zod";

/** The `schedule` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const ScheduleSchema = z
  .object({
    /** The Designer generates (and its delayed update is scheduled) every k steps; the Solver updates every step (co-evolution). @default 4 */
    designerEvery: z.number().int().min(1).default(4),
    /** Steps between a Designer generation and the update on its trajectories, corrected by truncated importance sampling (SPADE). @default 1 */
    designerDelay: z.number().int().min(0).default(1),
  })
  .strict()
  .prefault({});
