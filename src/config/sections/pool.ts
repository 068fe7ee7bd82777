import { z } from "zod";

/**
 * The `pool` block of the configuration (composed into `ConfigSchema` in ../schema.ts): which
 * envforge environment packages start a run's memory, the fixed pool the Solver plays and the
 * Designer builds on. docs/configuration.md is generated from these keys and their TSDoc.
 */
export const PoolSchema = z
  .object({
    /**
     * Folders of envforge packages (each a package folder or a folder of them, e.g. `envs/tool-seeds`,
     * the six tool-use seeds) whose environments join the run's memory beside the seeds. Each package
     * must read. CLI `run --packages DIR...`. @default []
     */
    packages: z.array(z.string().min(1)).default([]),
    /**
     * Whether the shipped seed environments (`envs/seeds`, the ten games) start the memory. false: only
     * `packages`, `terminal.seeds` and `openenv.packages` do (a run that trains a tool-use agent). CLI
     * `run --no-seeds`. @default true
     */
    seeds: z.boolean().default(true),
  })
  .strict()
  .prefault({});
