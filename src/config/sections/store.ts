import { z } from "zod";

/**
 * The `store` block of the configuration (composed into `ConfigSchema` in ../schema.ts): where a
 * run's memory lives. docs/configuration.md is generated from these keys and their TSDoc.
 */
export const StoreSchema = z
  .object({
    /**
     * A PostgreSQL URL (`postgres://user@host:5432/db`): the run's memory lives in that database, in
     * the schema named after the run folder (`runs/demo` → `run_demo`), shared with the workers and
     * other orchestrators of the deployment (docs/deploy.md). The password comes from `PGPASSWORD`
     * or `~/.pgpass`, as libpq reads them (a password in the URL works, but is not written to the
     * run folder's `store.json`). null: the SQLite file `envforge.db` in the run folder. CLI
     * `run --store URL`. @default null
     */
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "store.url must be a PostgreSQL URL (postgres://user@host:5432/db)")
      .refine((url) => URL.canParse(url), "store.url must be one host's URL (postgres://user@host:5432/db); a multi-host list does not parse as a URL")
      .nullable()
      .default(null),
  })
  .strict()
  .prefault({});
