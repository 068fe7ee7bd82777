import type { EnvPackage, Provenance, TerminalTask } from "../../spec/index.js";
import { DEFAULT_TERMINAL_TURNS, terminalManifest } from "./terminal-environment.js";

/**
 * A terminal task as an {@link EnvPackage} (see `EnvPackage.terminal`): the manifest of
 * {@link terminalManifest} with `maxTurns` commands, `tests/test.sh` as `envSource` and
 * `solution/solve.sh` (or "") as `oracleSource`, so its content id changes with its tests and
 * solution. `provenance` replaces the manifest's (a seed's by default), e.g. for an evolved child.
 */
export function terminalPackage(task: TerminalTask, maxTurns = DEFAULT_TERMINAL_TURNS, provenance?: Provenance): EnvPackage {
  const manifest = terminalManifest(task, maxTurns);
  return {
    manifest: provenance === undefined ? manifest : { ...manifest, provenance },
    envSource: task.tests,
    oracleSource: task.solution ?? "",
    terminal: task,
  };
}
