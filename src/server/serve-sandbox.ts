import type { SandboxSettings } from "../adapters/sandbox/index.js";
import type { Config } from "../config/index.js";

/**
 * The sandbox settings of `envforge serve`: `config.sandbox`, with enough jails for the session
 * capacity (`ceil(serve.capacity / serve.sessionsPerJail)`, at least `sandbox.workers`) and a
 * process limit per jail that fits twice its share of sessions (live episodes and spares), and
 * programs kept loaded for a minute after their last session closed (clients come and go).
 */
export function serveSandboxSettings(config: Config): SandboxSettings {
  const jails = Math.max(config.sandbox.workers, Math.ceil(config.serve.capacity / config.serve.sessionsPerJail));
  const share = Math.ceil(config.serve.capacity / jails);
  return { ...config.sandbox, workers: jails, jailPids: Math.max(config.sandbox.jailPids, 2 * share + 64), programLingerMs: 60_000 };
}
