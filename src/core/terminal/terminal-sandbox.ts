import type { EnvProgram, EnvSession, Sandbox, SandboxOutcome, TerminalRuntime } from "../../spec/index.js";
import { TerminalEnvSession, type TerminalEpisodeOptions } from "./terminal-environment.js";

/**
 * A sandbox that also plays terminal tasks: a program with `terminalEpisode` opens a
 * {@link TerminalEnvSession} on `runtime` (each `reset` a fresh root; the tests run after
 * `maxTurns` commands at the latest); every other program goes to `sandbox`. Closing closes both.
 * So the episode runner, evaluation and the server play terminal tasks as they play programs.
 */
export function withTerminalRuntime(sandbox: Sandbox, runtime: TerminalRuntime, options: Pick<TerminalEpisodeOptions, "commandTimeoutMs"> = {}): Sandbox {
  return {
    name: `${sandbox.name}+terminal`,
    async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
      const terminal = program.terminalEpisode;
      if (terminal === undefined) return sandbox.open(program);
      return { kind: "ok", value: new TerminalEnvSession(runtime, terminal.task, { ...options, maxTurns: terminal.maxTurns }) };
    },
    async close() {
      await Promise.all([sandbox.close(), runtime.close()]);
    },
  };
}
