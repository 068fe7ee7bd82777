import { SandboxUnavailableError, type Sandbox } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { ProcessSandbox } from "./process-sandbox.js";
import { RemoteSandbox } from "./remote-sandbox.js";

/** The sandbox settings of the configuration (`config.sandbox`). */
export interface SandboxSettings {
  readonly backend: "bwrap" | "process" | "remote";
  readonly trustedCode: boolean;
  /** milliseconds */
  readonly callTimeoutMs: number;
  /** MiB */
  readonly memoryMb: number;
  /** seconds */
  readonly cpuSeconds: number;
  readonly workers: number;
  readonly recycleAfterEpisodes: number;
  /** MiB per jail (cgroup) */
  readonly jailMemoryMb: number;
  /** processes and threads per jail (cgroup) */
  readonly jailPids: number;
  /** cores per jail (cgroup); 0 = no CPU limit */
  readonly jailCpus: number;
  /** The servers of the `remote` backend (`config.sandbox.remote`); required by it. */
  readonly remote?: {
    readonly urls: readonly string[];
    /** environment variable holding the bearer token */
    readonly tokenEnv: string;
    /** milliseconds */
    readonly connectTimeoutMs: number;
    /** milliseconds */
    readonly heartbeatMs: number;
    /** milliseconds */
    readonly cooldownMs: number;
  };
  /** milliseconds a jail keeps an unheld program loaded (see `ZygoteSandboxOptions.programLingerMs`); not a config key. @default 0 */
  readonly programLingerMs?: number;
}

/**
 * The one place a sandbox backend is chosen from configuration. The `remote` backend reads its
 * bearer token from the environment variable `remote.tokenEnv` of `environment`.
 * @param warn told what the user should know: a `process` backend without a jail, a `remote` server that failed
 * @param environment process environment (injected for tests). @default process.env
 * @throws SandboxUnavailableError when the backend cannot start here, `process` is chosen without `trustedCode`, or `remote` without server URLs
 */
export function openSandbox(settings: SandboxSettings, warn?: (message: string) => void, environment: NodeJS.ProcessEnv = process.env): Sandbox {
  if (settings.backend === "remote") {
    const remote = settings.remote;
    if (remote === undefined || remote.urls.length === 0) throw new SandboxUnavailableError("the remote sandbox backend needs at least one server URL (sandbox.remote.urls)");
    const token = environment[remote.tokenEnv]?.trim();
    return new RemoteSandbox({
      urls: remote.urls,
      ...(token === undefined || token === "" ? {} : { token }),
      connectTimeoutMs: remote.connectTimeoutMs,
      heartbeatMs: remote.heartbeatMs,
      cooldownMs: remote.cooldownMs,
      ...(warn ? { warn } : {}),
    });
  }
  const common = {
    limits: {
      callTimeoutMs: settings.callTimeoutMs,
      memoryBytes: settings.memoryMb * 1024 * 1024,
      cpuSeconds: settings.cpuSeconds,
      jailMemoryBytes: settings.jailMemoryMb * 1024 * 1024,
      jailPids: settings.jailPids,
      jailCpus: settings.jailCpus,
    },
    workers: settings.workers,
    recycleAfterEpisodes: settings.recycleAfterEpisodes,
    ...(settings.programLingerMs === undefined ? {} : { programLingerMs: settings.programLingerMs }),
  };
  if (settings.backend === "process") {
    return new ProcessSandbox({ ...common, trustedCode: settings.trustedCode, ...(warn ? { warn } : {}) });
  }
  return new BwrapSandbox(common);
}
