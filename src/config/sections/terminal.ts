import { z } from "zod";

/**
 * The `terminal` block of the configuration (composed into `ConfigSchema` in ../schema.ts):
 * terminal tasks (Harbor task folders played in a jailed Debian root; docs/terminal-environments.md)
 * in the self-play run, and the limits of their episodes wherever envforge plays them.
 * docs/configuration.md is generated from these keys and their TSDoc.
 */
export const TerminalSchema = z
  .object({
    /**
     * A folder of Harbor task folders (e.g. `envs/terminal-seeds`) whose tasks join the run's memory
     * beside the seed environments: the Solver plays them in the run, calibration and training see
     * them as any environment. null = none. Give the Solver room: `solver.maxTokens` 128 or more for a
     * command, `solver.maxTurns` for the commands per episode. CLI `run --terminal-seeds`. @default null
     */
    seeds: z.string().min(1).nullable().default(null),
    /**
     * Memory starts with the terminal tasks of `seeds` alone, without the shipped program seeds (a
     * run that trains a terminal agent; `openenv.packages` still join). The Designer still writes programs unless `designer.designs`
     * is 0. Needs `seeds`. @default false
     */
    only: z.boolean().default(false),
    /** Commands per terminal episode when the task is read into a run; `solver.maxTurns` caps it further. @default 30 */
    maxTurns: z.number().int().min(1).max(200).default(30),
    /** Wall-clock limit of one command, milliseconds (also bounded by the task's agent time). @default 60000 */
    commandTimeoutMs: z.number().int().min(1000).max(3_600_000).default(60_000),
    /**
     * Let tasks whose task.toml allows the network (`[environment] allow_internet = true`) reach it;
     * otherwise such a task's episodes are refused with a clear failure. Every other task runs
     * without a network whatever this says. CLI `run --allow-network`; the other commands read it from `--config`. @default false
     */
    allowNetwork: z.boolean().default(false),
  })
  .strict()
  .prefault({});
