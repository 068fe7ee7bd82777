import type { SandboxSettings } from "../adapters/sandbox/index.js";
import type { Config } from "../config/index.js";
import { ConfigError } from "../spec/index.js";

/**
 * The sandbox settings of `envforge serve`: `config.sandbox`, with enough jails for the session
 * capacity (`ceil(serve.capacity / serve.sessionsPerJail)`, at least `sandbox.workers`) and a
 * process limit per jail that fits twice its share of sessions (live episodes and spares), and
 * programs kept loaded for a minute after their last session closed (clients come and go).
 * @throws ConfigError when `sandbox.backend` is `remote`: a server runs episodes in its own jails (a remote backend would relay to other servers, or loop back to itself)
 */
export function serveSandboxSettings(config: Config): SandboxSettings {
  if (config.sandbox.backend === "remote") throw new ConfigError("envforge serve runs episodes in its own jails: set sandbox.backend to bwrap (or process) in the server's config, not remote");
  const jails = Math.max(config.sandbox.workers, Math.ceil(config.serve.capacity / config.serve.sessionsPerJail));
  const share = Math.ceil(config.serve.capacity / jails);
  return { ...config.sandbox, workers: jails, jailPids: Math.max(config.sandbox.jailPids, 2 * share + 64), programLingerMs: 60_000 };
}
