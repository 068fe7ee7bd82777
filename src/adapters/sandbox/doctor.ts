import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvforgeError } from "../../spec/index.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import { CGROUP_HOW_TO_ENABLE, probeCgroups, type CgroupSupport } from "./cgroup.js";
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

/**
 * cgroups: whether every jail gets its own cgroup (memory, pids and, where
 * writable and configured, cpu limits) on this machine, and how to enable them
 * when not. `support` is what the sandbox found when it started.
 */
export function cgroupStatus(support: CgroupSupport = probeCgroups()): ProtectionStatus {
  const name = "cgroups (memory, pids, cpu)";
  if (support.active) return { name, active: true, detail: `${support.detail}; limits: sandbox.jailMemoryMb, sandbox.jailPids, sandbox.jailCpus` };
  return {
    name,
    active: false,
    detail: `not used: ${support.detail}. Jails run without a cgroup: memory is bounded per episode by RLIMIT_AS/RLIMIT_DATA, new processes by seccomp and the audit hook, CPU by RLIMIT_CPU`,
    howToEnable: support.howToEnable,
  };
}

/** {@link cgroupStatus} of a sandbox whose self-test jail is live, checked: the jail's pid must be in each of its cgroups. */
function jailCgroupStatus(sandbox: ZygoteSandbox): ProtectionStatus {
  const status = cgroupStatus(sandbox.cgroups);
  if (!status.active) return status;
  const [pid] = sandbox.jailProcessIds();
  const directories = sandbox.jailCgroupDirectories();
  const outside = directories.filter((directory) => {
    try {
      return !readFileSync(join(directory, "cgroup.procs"), "utf8").split("\n").includes(String(pid));
    } catch {
      return true;
    }
  });
  if (directories.length > 0 && outside.length === 0) return { ...status, detail: `${status.detail}; the self-test jail (pid ${pid}) is in ${directories.join(", ")}` };
  return { ...status, active: false, detail: `the self-test jail (pid ${pid}) is not in its cgroup (${outside.join(", ") || "none created"})`, howToEnable: CGROUP_HOW_TO_ENABLE };
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
    const cgroups = jailCgroupStatus(sandbox);
    if ("error" in report) return [namespaces, { name: "self-test", active: false, detail: report.error }, cgroups];
    return [namespaces, ...fromSelfTest(report, backend === "bwrap"), cgroups];
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
