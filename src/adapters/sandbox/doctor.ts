import { accessSync, constants, existsSync } from "node:fs";
import { EnvforgeError } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { ProcessSandbox } from "./process-sandbox.js";
import type { SandboxSelfTest, ZygoteSandbox } from "./zygote-sandbox.js";

/** One protection as `envforge sandbox doctor` reports it. */
export interface ProtectionStatus {
  readonly name: string;
  readonly active: boolean;
  /** What was found. */
  readonly detail: string;
  /** How to enable it, when missing. */
  readonly howToEnable?: string;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * cgroups: envforge does not create cgroups yet (memory is bounded by
 * RLIMIT_AS/RLIMIT_DATA, processes by seccomp, CPU by RLIMIT_CPU); this says
 * whether the machine would let it.
 */
export function cgroupStatus(): ProtectionStatus {
  const v2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
  const v1Memory = existsSync("/sys/fs/cgroup/memory") && writable("/sys/fs/cgroup/memory");
  const v1Pids = existsSync("/sys/fs/cgroup/pids") && writable("/sys/fs/cgroup/pids");
  const detail = v2
    ? `cgroup v2 mounted (${writable("/sys/fs/cgroup") ? "writable" : "not writable"} by this user)`
    : `cgroup v1: memory ${v1Memory ? "writable" : "not writable"}, pids ${v1Pids ? "writable" : "not writable"}`;
  return {
    name: "cgroups (memory, pids, cpu)",
    active: false,
    detail: `not used: envforge does not create cgroups yet; ${detail}. Memory is bounded by RLIMIT_AS/RLIMIT_DATA, new processes by seccomp and the audit hook, CPU by RLIMIT_CPU`,
    howToEnable: "not implemented yet (planned: a delegated cgroup v2 subtree, e.g. systemd-run --user --scope -p Delegate=yes)",
  };
}

function fromSelfTest(report: SandboxSelfTest, namespaces: boolean): ProtectionStatus[] {
  const blocked = Object.entries(report.blocked);
  const refused = blocked.filter(([, value]) => value).map(([name]) => name);
  const allowed = blocked.filter(([, value]) => !value).map(([name]) => name);
  const limits = Object.entries(report.rlimits)
    .map(([name, [soft, hard]]) => `${name.replace("RLIMIT_", "")}=${soft === -1 ? "∞" : soft}/${hard === -1 ? "∞" : hard}`)
    .join(" ");
  return [
    {
      name: "network namespace",
      active: report.network === "isolated",
      detail: report.network === "isolated" ? "no route out of the jail" : `network is ${report.network} from an episode`,
      howToEnable: namespaces ? "bwrap --unshare-all should isolate it; check that user namespaces work" : "use the bwrap backend",
    },
    {
      name: "filesystem isolation",
      active: !report.etcVisible && !report.homeVisible,
      detail: `${namespaces ? "read-only /usr, tmpfs /tmp" : "the host's filesystem"}; /etc ${report.etcVisible ? "VISIBLE" : "absent"}, home ${report.homeVisible ? "VISIBLE" : "absent"}`,
      howToEnable: "use the bwrap backend (the process backend sees the host's files)",
    },
    {
      name: "unprivileged user in the jail",
      active: report.uid !== 0,
      detail: `uid ${report.uid}`,
      howToEnable: "use the bwrap backend (it maps the episode to uid 65534 with all capabilities dropped)",
    },
    {
      name: "seccomp filter",
      active: report.seccomp === "active" && allowed.length === 0,
      detail: report.seccomp === "active" ? `refuses ${refused.join(", ")}${allowed.length ? `; NOT refused: ${allowed.join(", ")}` : ""}` : report.seccomp,
      howToEnable: "apt-get install -y python3-seccomp",
    },
    { name: "rlimits", active: true, detail: limits },
    {
      name: "audit hook",
      active: true,
      detail: `Python ${report.python}: exec, fork, sockets, ctypes, threads, gc walking, files outside the episode directory → forbidden`,
    },
    {
      name: "fixed hash seed",
      active: report.hashSeedFixed,
      detail: report.hashSeedFixed ? "PYTHONHASHSEED=0 in every jail" : "hash() of strings differs between jails",
      howToEnable: "the zygote must start with PYTHONHASHSEED=0 and without -E/-I",
    },
  ];
}

/**
 * Which protections an episode really gets on this machine with `backend`:
 * starts a jail, forks a self-test child in it and reads what it found, plus
 * the cgroup status. Never throws; a backend that cannot start is reported.
 */
export async function diagnoseSandbox(backend: "bwrap" | "process" = "bwrap"): Promise<ProtectionStatus[]> {
  let sandbox: ZygoteSandbox;
  try {
    sandbox = backend === "bwrap" ? new BwrapSandbox() : new ProcessSandbox({ trustedCode: true, warn: () => undefined });
  } catch (error) {
    const message = error instanceof EnvforgeError ? error.message : String(error);
    return [{ name: "namespaces (bubblewrap jail)", active: false, detail: message, howToEnable: "apt-get install -y bubblewrap; enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)" }, cgroupStatus()];
  }
  try {
    const report = await sandbox.selfTest();
    const namespaces: ProtectionStatus =
      backend === "bwrap"
        ? { name: "namespaces (bubblewrap jail)", active: true, detail: "user, pid, mount, ipc, uts, cgroup and network namespaces unshared; new session; dies with its parent; capabilities dropped" }
        : { name: "namespaces (bubblewrap jail)", active: false, detail: "the process backend has none", howToEnable: "apt-get install -y bubblewrap and use backend bwrap" };
    if ("error" in report) return [namespaces, { name: "self-test", active: false, detail: report.error }, cgroupStatus()];
    return [namespaces, ...fromSelfTest(report, backend === "bwrap"), cgroupStatus()];
  } finally {
    await sandbox.close();
  }
}

/** Human-readable lines of a {@link diagnoseSandbox} result. */
export function formatDiagnosis(statuses: readonly ProtectionStatus[]): string {
  return statuses
    .map((status) => `${status.active ? "✔" : "✘"} ${status.name}: ${status.detail}${!status.active && status.howToEnable ? `\n    enable: ${status.howToEnable}` : ""}`)
    .join("\n");
}
