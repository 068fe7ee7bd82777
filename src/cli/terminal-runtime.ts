import { readHarborTaskFolders, TerminalJailRuntime } from "../adapters/terminal/index.js";
import type { Config } from "../config/index.js";
import { terminalPackage, withTerminalRuntime } from "../core/terminal/index.js";
import { ConfigError, type EnvPackage, type Sandbox, type TerminalRuntime } from "../spec/index.js";

/** The terminal jail the config describes (`terminal.allowNetwork`). @throws SandboxUnavailableError when python3 or the jail script is missing */
export function terminalRuntimeOf(config: Pick<Config, "terminal">): TerminalJailRuntime {
  return new TerminalJailRuntime({ allowNetwork: config.terminal.allowNetwork });
}

/**
 * `sandbox` that also plays terminal tasks ({@link withTerminalRuntime}), with the config's jail
 * and command limit; the jail is made on the first terminal task, so a memory without one never
 * starts it. `runtime` makes it (default: {@link terminalRuntimeOf}); pass one the caller shares and closes itself.
 */
export function terminalSandboxOf(sandbox: Sandbox, config: Pick<Config, "terminal">, runtime: () => TerminalRuntime = () => terminalRuntimeOf(config)): Sandbox {
  return withTerminalRuntime(sandbox, runtime, { commandTimeoutMs: config.terminal.commandTimeoutMs });
}

/**
 * The terminal tasks of `terminal.seeds` as packages ({@link terminalPackage}, `terminal.maxTurns`
 * commands each), in path order; none when the key is null.
 * @throws ConfigError when the folder holds no Harbor task folder, or one of them does not read (its verdict is named)
 */
export function terminalSeedPackages(config: Pick<Config, "terminal">): EnvPackage[] {
  const folder = config.terminal.seeds;
  if (folder === null) return [];
  const tasks = readHarborTaskFolders(folder);
  if (tasks.length === 0) throw new ConfigError(`terminal.seeds ${folder}: no Harbor task folder (with task.toml) there`);
  return tasks.map((task) => {
    if ("status" in task) throw new ConfigError(`terminal.seeds ${folder}: ${String(task.evidence?.folder ?? "a task")} does not read (${task.reason}): ${task.message}`);
    return terminalPackage(task, config.terminal.maxTurns);
  });
}
