import { z } from "zod";

/** The `metrics` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const MetricsSchema = z
  .object({
    /**
     * TensorBoard log folder that `envforge run` rewrites after every round with the run's scalars (the same
     * event file `envforge export tensorboard --out RUN --to FOLDER` writes, under `FOLDER/<run folder name>/`);
     * needs trainer/.venv (scripts/setup.sh). A failed export is a notice, never a stop. No CLI flag: export a
     * finished run with `envforge export tensorboard`. null = no live export. @default null
     */
    tensorboard: z.string().min(1).nullable().default(null),
  })
  .strict()
  .prefault({});
