import { z } from "zod";

/**
 * The `openenv` block of the configuration (composed into `ConfigSchema` in ../schema.ts): OpenEnv
 * environment packages (openenv 0.10 package folders, played in the terminal jail;
 * docs/openenv-import.md) in the self-play run. docs/configuration.md is generated from these keys
 * and their TSDoc.
 */
export const OpenEnvSchema = z
  .object({
    /**
     * An OpenEnv package folder, or a folder of them, whose environments join the run's memory (the
     * fixed pool) beside the seeds; each must read (`envforge admit` says why one does not). null =
     * none. CLI `run --openenv DIR`. @default null
     */
    packages: z.string().min(1).nullable().default(null),
    /** Steps per episode of an OpenEnv environment (openenv.yaml declares none); `solver.maxTurns` caps it further. @default 30 */
    maxTurns: z.number().int().min(1).max(200).default(30),
  })
  .strict()
  .prefault({});
