import { readHarborTaskFolders, TerminalJailRuntime } from "../adapters/terminal/index.js";
import { openEnvPackage, readOpenEnvPackageFolders, withOpenEnvRuntime } from "../adapters/openenv/index.js";
import type { Config } from "../config/index.js";
import { terminalPackage, withTerminalRuntime } from "../core/terminal/index.js";
import { ConfigError, type EnvPackage, type RejectVerdict, type Sandbox, type TerminalRuntime } from "../spec/index.js";

/** The terminal jail the config describes (`terminal.allowNetwork`). @throws SandboxUnavailableError when python3 or the jail script is missing */
export function terminalRuntimeOf(config: Pick<Config, "terminal">): TerminalJailRuntime {
  return new TerminalJailRuntime({ allowNetwork: config.terminal.allowNetwork });
}

/**
 * `sandbox` that also plays terminal tasks ({@link withTerminalRuntime}) and OpenEnv packages
 * (`withOpenEnvRuntime`) in one terminal jail with the config's limits; the jail is made on the
 * first such environment, so a memory without one never starts it. `runtime` makes it (default:
 * {@link terminalRuntimeOf}); the runtime made is closed with the returned sandbox (closing a
 * runtime twice is harmless, so a caller that also uses it elsewhere may close it again).
 */
export function terminalSandboxOf(sandbox: Sandbox, config: Pick<Config, "terminal">, runtime?: () => TerminalRuntime): Sandbox {
  let made: TerminalRuntime | null = null;
  const shared = () => (made ??= (runtime ?? (() => terminalRuntimeOf(config)))());
  const wrapped = withOpenEnvRuntime(withTerminalRuntime(sandbox, shared, { commandTimeoutMs: config.terminal.commandTimeoutMs }), shared);
  return {
    name: `${sandbox.name}+terminal`,
    open: (program) => wrapped.open(program),
    async close() {
      await wrapped.close();
      await (made as TerminalRuntime | null)?.close();
    },
  };
}

/**
 * The terminal tasks of `terminal.seeds` as packages ({@link terminalPackage}, `terminal.maxTurns`
 * commands each), in path order; none when the key is null.
 * @throws ConfigError when the folder holds no Harbor task folder, or one of them does not read (its verdict is named)
 */
export function terminalSeedPackages(config: Pick<Config, "terminal">): EnvPackage[] {
  return folderPackages("terminal.seeds", config.terminal.seeds, readHarborTaskFolders, "Harbor task folder (with task.toml)", (task) => terminalPackage(task, config.terminal.maxTurns));
}

/**
 * The OpenEnv packages of `openenv.packages` as environments ({@link openEnvPackage},
 * `openenv.maxTurns` steps each), in path order; none when the key is null.
 * @throws ConfigError when the folder holds no OpenEnv package, or one of them does not read (its verdict is named)
 */
export function openEnvSeedPackages(config: Pick<Config, "openenv">): EnvPackage[] {
  return folderPackages("openenv.packages", config.openenv.packages, readOpenEnvPackageFolders, "OpenEnv package folder (with openenv.yaml)", (task) => openEnvPackage(task, config.openenv.maxTurns));
}

/** The packages `read` finds in `folder` (the config key `key`), each made by `make`; a folder that holds none, or an entry that does not read, is a ConfigError naming the key. */
function folderPackages<T>(key: string, folder: string | null, read: (folder: string) => (T | RejectVerdict)[], kind: string, make: (entry: T) => EnvPackage): EnvPackage[] {
  if (folder === null) return [];
  const entries = read(folder);
  if (entries.length === 0) throw new ConfigError(`${key} ${folder}: no ${kind} there`);
  return entries.map((entry) => {
    if (typeof entry === "object" && entry !== null && "status" in entry) {
      const verdict = entry as RejectVerdict;
      throw new ConfigError(`${key} ${folder}: ${String(verdict.evidence?.folder ?? "an entry")} does not read (${verdict.reason}): ${verdict.message}`);
    }
    return make(entry as T);
  });
}
