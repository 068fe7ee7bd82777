import type { Sandbox } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { ProcessSandbox } from "./process-sandbox.js";

/** The sandbox settings of the configuration (`config.sandbox`). */
export interface SandboxSettings {
  readonly backend: "bwrap" | "process";
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
  /** milliseconds a jail keeps an unheld program loaded (see `ZygoteSandboxOptions.programLingerMs`); not a config key. @default 0 */
  readonly programLingerMs?: number;
}

/**
 * The one place a sandbox backend is chosen from configuration.
 * @throws SandboxUnavailableError when the backend cannot start here, or `process` is chosen without `trustedCode`
 */
export function openSandbox(settings: SandboxSettings, warn?: (message: string) => void): Sandbox {
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
