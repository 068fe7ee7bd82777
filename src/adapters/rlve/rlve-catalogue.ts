import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError } from "../../spec/index.js";
import { CATALOGUE_PROGRAM } from "./rlve-python.js";

/** The interpreter of the virtualenv `./scripts/setup.sh` installs rlve-gym into. */
export const RLVE_VENV_PYTHON = resolve(dirname(fileURLToPath(import.meta.url)), "../../../.venv-rlve/bin/python");

/** What to run when the RLVE virtualenv is missing. */
export const RLVE_SETUP_COMMAND = "./scripts/setup.sh";

const ModuleSchema = z.union([
  z.object({ missing: z.literal(true), path: z.string().nullable() }),
  z.object({
    missing: z.literal(false),
    /** Path relative to the folder holding `Gym/`, e.g. `Gym/environments/multiplication/environment.py`. */
    path: z.string(),
    source: z.string(),
    definesClass: z.boolean(),
    thirdParty: z.array(z.string()),
    fromGym: z.array(z.string()),
    gymImportLines: z.array(z.tuple([z.number().int(), z.number().int()])),
  }),
]);

const CatalogueSchema = z.object({
  version: z.string().nullable(),
  gymPath: z.string(),
  /** Every identifier of RLVE's registry, in registry order. */
  registered: z.array(z.string()),
  environments: z.array(
    z.object({
      identifier: z.string(),
      environmentClass: z.string(),
      controllerClass: z.string().nullable(),
      environment: ModuleSchema,
      controller: ModuleSchema,
    }),
  ),
});

/** One Python module of RLVE as the catalogue reader saw it (its source, what it imports). */
export type RlveModule = z.infer<typeof ModuleSchema>;

/** One RLVE environment: its identifier (`Multiplication`), class names and the modules defining them. */
export type RlveEntry = z.infer<typeof CatalogueSchema>["environments"][number];

/** The installed RLVE: the rlve-gym version, where `Gym/` lies, its registry, and the environments read (registry order). */
export type RlveCatalogue = z.infer<typeof CatalogueSchema>;

/** Options of {@link readRlveCatalogue}. */
export interface RlveCatalogueOptions {
  /** Interpreter with rlve-gym installed. @default {@link RLVE_VENV_PYTHON} */
  readonly python?: string;
  /** Wall-clock limit of the reader, milliseconds. @default 60000 */
  readonly timeoutMs?: number;
  /** Identifiers whose modules are read; the others are only listed in `registered`. @default all */
  readonly identifiers?: readonly string[];
}

/**
 * Reads RLVE's registry and sources from the installed `Gym` package: a Python child parses
 * `Gym/environments/__init__.py`, `Gym/parameter_controllers/__init__.py` and every module they
 * name with `ast` (nothing of RLVE is imported or run).
 *
 * @throws ConfigError when the interpreter is missing (the message says to run
 *   {@link RLVE_SETUP_COMMAND}), when `Gym` is not installed in it, or when its answer is unreadable
 */
export async function readRlveCatalogue(options: RlveCatalogueOptions = {}): Promise<RlveCatalogue> {
  const python = options.python ?? RLVE_VENV_PYTHON;
  if (!existsSync(python)) throw new ConfigError(`RLVE is not installed (${python} is missing): run ${RLVE_SETUP_COMMAND}`);
  const output = await new Promise<string>((resolvePromise, reject) => {
    execFile(python, ["-I", "-c", CATALOGUE_PROGRAM, JSON.stringify(options.identifiers ?? null)], { timeout: options.timeoutMs ?? 60_000, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new ConfigError(`reading RLVE's sources with ${python} failed: ${(stderr || error.message).slice(-2000)}`, { cause: error }));
      else resolvePromise(stdout);
    });
  });
  let raw: unknown;
  try {
    raw = JSON.parse(output);
  } catch (error) {
    throw new ConfigError(`reading RLVE's sources with ${python} gave no JSON: ${output.slice(0, 300)}`, { cause: error });
  }
  if (typeof raw === "object" && raw !== null && "error" in raw) {
    throw new ConfigError(`${String((raw as { error: unknown }).error)}: run ${RLVE_SETUP_COMMAND}`);
  }
  const parsed = CatalogueSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`reading RLVE's sources gave an unexpected catalogue: ${parsed.error.message.slice(0, 500)}`);
  return parsed.data;
}
