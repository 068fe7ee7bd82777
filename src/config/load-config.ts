import { readFileSync } from "node:fs";
import { ConfigError } from "../spec/index.js";
import { ConfigSchema, type Config } from "./schema.js";

/**
 * Validates a raw configuration object.
 *
 * @param source where the object came from, used in messages (e.g. a file path)
 * @throws ConfigError naming every offending key with its problem and allowed values
 */
export function parseConfig(raw: unknown, source = "config"): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = issue.path.join(".") || "(root)";
    // zod's message already names unknown keys; say which keys that level takes instead
    const allowed = issue.code === "unrecognized_keys" ? keysAt(issue.path) : null;
    return `  ${key}: ${issue.message}${allowed === null ? "" : `; allowed: ${allowed.join(", ")}`}`;
  });
  throw new ConfigError(`invalid configuration (${source}):\n${problems.join("\n")}`);
}

/** The keys the config object at `path` takes (through zod's default/prefault wrappers), or null when it is not an object. */
function keysAt(path: readonly PropertyKey[]): string[] | null {
  const unwrap = (schema: unknown): unknown => {
    let current = schema as { _zod?: { def?: { innerType?: unknown } } } | undefined;
    while (current?._zod?.def?.innerType !== undefined) current = current._zod.def.innerType as typeof current;
    return current;
  };
  let schema = unwrap(ConfigSchema) as { shape?: Record<string, unknown> } | undefined;
  for (const segment of path) schema = unwrap(schema?.shape?.[String(segment)]) as typeof schema;
  return schema?.shape === undefined ? null : Object.keys(schema.shape);
}

/**
 * Where a configuration merged from an optional file and command-line flags came
 * from, for {@link parseConfig}'s messages: a bad flag value is not blamed on the file.
 *
 * @param file the `--config` path, if any
 */
export function configSource(file: string | undefined): string {
  return file === undefined ? "command-line flags over the defaults" : `${file} and the command-line flags`;
}

/**
 * Reads a JSON config file without validating its keys (merge CLI flags, then
 * call {@link parseConfig}).
 * @throws ConfigError when the file is missing, not JSON, or not a JSON object
 */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlainObject(raw)) throw new ConfigError(`config file ${path} must hold a JSON object, not ${Array.isArray(raw) ? "an array" : String(raw === null ? "null" : typeof raw)}`);
  return raw;
}

/** Deep-merges `override` into `base` (plain objects only; arrays and values replace). */
export function mergeConfigInput(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = mergeConfigInput(base[key], value);
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
