/**
 * An OpenEnv environment package (openenv 0.10: `openenv.yaml`, `models.py`, `server/app.py`,
 * `server/<name>_environment.py`) read for envforge's admission and pool: where it is and what its
 * environment class is. Every path is absolute on the host. The package's code runs only in the
 * terminal jail (docs/openenv-import.md).
 */
export interface OpenEnvTask {
  /** `name` of openenv.yaml. */
  readonly name: string;
  /** The package folder (holding openenv.yaml). */
  readonly folder: string;
  /** The Python package the folder is imported as (its name, a Python identifier). */
  readonly pythonPackage: string;
  /** The module of the environment class, relative to the package, e.g. `server.echo_environment`. */
  readonly environmentModule: string;
  /** The `Environment` subclass the module defines, e.g. `EchoEnvironment`. */
  readonly environmentClass: string;
  /** openenv.yaml's one-line description, or the README's first paragraph, or "". */
  readonly description: string;
  /** openenv.yaml `validation.reward.range`. @default [0, 1] */
  readonly rewardRange: readonly [number, number];
  /** openenv.yaml `validation.resources` (memory MiB, disk MiB, cores, wall-clock seconds per episode), within envforge's caps (`OPENENV_LIMITS`). */
  readonly resources: { readonly memoryMb: number; readonly diskMb: number; readonly cpus: number; readonly episodeTimeoutSec: number };
  /** Whether the package carries envforge's optional `oracle.py` (`act(env, observation)`). */
  readonly hasOracle: boolean;
  /** openenv.yaml `types.tags` (or `tags`), at most 8. */
  readonly tags: readonly string[];
  /** sha256 of the folder's files, as a terminal task's (a package's content id covers it). */
  readonly filesDigest: string;
  /** The environment module's source text (what novelty and self-review read). */
  readonly source: string;
  /** `oracle.py`'s text, or "". */
  readonly oracle: string;
}
