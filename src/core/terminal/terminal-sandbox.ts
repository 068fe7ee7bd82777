import type { EnvProgram, EnvSession, Sandbox, SandboxOutcome, TerminalRuntime } from "../../spec/index.js";
import { TerminalEnvSession, type TerminalEpisodeOptions } from "./terminal-environment.js";

/**
 * A sandbox that also plays terminal tasks: a program with `terminalEpisode` opens a
 * {@link TerminalEnvSession} on the terminal runtime (each `reset` a fresh root; the tests run after
 * `maxTurns` commands at the latest); every other program goes to `sandbox`. Closing closes both.
 * So the episode runner, evaluation, the self-play run and the server play terminal tasks as they
 * play programs.
 *
 * @param runtime the runtime, or a function that makes it on the first terminal program (a run
 *   whose memory holds no terminal task never starts one); what that function throws (e.g.
 *   `SandboxUnavailableError`) propagates from `open`, as a sandbox that cannot start at all does
 */
export function withTerminalRuntime(sandbox: Sandbox, runtime: TerminalRuntime | (() => TerminalRuntime), options: Pick<TerminalEpisodeOptions, "commandTimeoutMs"> = {}): Sandbox {
  let made: TerminalRuntime | null = typeof runtime === "function" ? null : runtime;
  const terminalRuntime = () => (made ??= (runtime as () => TerminalRuntime)());
  return {
    name: `${sandbox.name}+terminal`,
    async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
      const terminal = program.terminalEpisode;
      if (terminal === undefined) return sandbox.open(program);
      return { kind: "ok", value: new TerminalEnvSession(terminalRuntime(), terminal.task, { ...options, maxTurns: terminal.maxTurns }) };
    },
    async close() {
      await Promise.all([sandbox.close(), made?.close()]);
    },
  };
}
