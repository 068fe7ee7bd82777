import { z } from "zod";

/** The `corpus` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const CorpusSchema = z
  .object({
    /** A `.jsonl` file (`{"id","text"}` per line) or a folder of `.txt`/`.md` files; null = the shipped sample corpus (`corpus/tools.jsonl` when `designer.format` is `tool`). @default null */
    path: z.string().nullable().default(null),
  })
  .strict()
  .prefault({});
