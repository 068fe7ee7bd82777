import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ZygoteCommand } from "./zygote-process.js";

/** Limits of one jail's cgroup. */
export interface CgroupLimits {
  /** Memory of the whole jail (zygote, spares and every episode together), bytes. */
  readonly memoryBytes: number;
  /** Processes and threads in the jail at once. */
  readonly pids: number;
  /** CPU time of the jail in cores (a CFS quota); 0 = no CPU limit. */
  readonly cpus: number;
}

/** Where jail cgroups can be created on this machine, or why they cannot. */
export type CgroupSupport =
  | {
      readonly active: true;
      readonly version: "v1" | "v2";
      /** Controller → the directory new jail cgroups are created in (the supervisor's own cgroup). */
      readonly parents: Readonly<Partial<Record<"memory" | "pids" | "cpu", string>>>;
      readonly detail: string;
    }
  | { readonly active: false; readonly detail: string; readonly howToEnable: string };

const CONTROLLERS = ["memory", "pids", "cpu"] as const;
type Controller = (typeof CONTROLLERS)[number];

/** How to get a writable cgroup subtree, for the doctor and the fallback report. */
export const CGROUP_HOW_TO_ENABLE =
  "run envforge as root with cgroup v1 controllers (memory, pids, cpu) mounted under /sys/fs/cgroup, or in a delegated cgroup v2 subtree whose cgroup.subtree_control enables memory and pids (e.g. systemd-run --user --scope -p Delegate=yes envforge ...)";

function writableDirectory(path: string): boolean {
  const probe = join(path, `envforge-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds where this process may create jail cgroups: below its own cgroup in
 * each hierarchy (read from `/proc/self/cgroup`), so the jail stays inside
 * whatever limits the supervisor itself runs under. cgroup v1 needs writable
 * memory and pids hierarchies (cpu is used when writable too); cgroup v2 needs
 * a writable own cgroup whose `cgroup.subtree_control` enables memory and pids.
 * Never throws; creates and removes one probe directory per hierarchy.
 *
 * @param root mount point of the cgroup file systems @default "/sys/fs/cgroup"
 * @param selfCgroup contents of `/proc/self/cgroup` @default read from /proc
 */
export function probeCgroups(root = "/sys/fs/cgroup", selfCgroup?: string): CgroupSupport {
  let lines: string[];
  try {
    lines = (selfCgroup ?? readFileSync("/proc/self/cgroup", "utf8")).trim().split("\n");
  } catch (error) {
    return { active: false, detail: `cannot read /proc/self/cgroup (${(error as Error).message})`, howToEnable: CGROUP_HOW_TO_ENABLE };
  }
  const own = new Map<string, string>(); // controller ("" for the v2 hierarchy) → own path
  for (const line of lines) {
    const [, controllers, path] = line.split(/:(.*?):(.*)/s);
    if (controllers === undefined || path === undefined) continue;
    for (const controller of controllers === "" ? [""] : controllers.split(",")) own.set(controller, path);
  }
  const v1 = CONTROLLERS.filter((controller) => own.has(controller) && existsSync(join(root, controller, "cgroup.procs")));
  if (v1.includes("memory") && v1.includes("pids")) {
    const parents: Partial<Record<Controller, string>> = {};
    const notWritable: string[] = [];
    for (const controller of v1) {
      const parent = resolve(join(root, controller, own.get(controller) as string));
      if (writableDirectory(parent)) parents[controller] = parent;
      else notWritable.push(parent);
    }
    if (parents.memory !== undefined && parents.pids !== undefined) {
      const cpu = parents.cpu === undefined ? "; cpu hierarchy not writable (no CPU limit)" : "";
      return { active: true, version: "v1", parents, detail: `cgroup v1, one cgroup per jail under ${parents.memory} and ${parents.pids}${cpu}` };
    }
    return { active: false, detail: `cgroup v1 mounted but not writable by this user: ${notWritable.join(", ")}`, howToEnable: CGROUP_HOW_TO_ENABLE };
  }
  if (own.has("") && existsSync(join(root, "cgroup.controllers"))) {
    const parent = resolve(join(root, own.get("") as string));
    let enabled: string[] = [];
    try {
      enabled = readFileSync(join(parent, "cgroup.subtree_control"), "utf8").trim().split(/\s+/);
    } catch {
      enabled = [];
    }
    const missing = ["memory", "pids"].filter((controller) => !enabled.includes(controller));
    if (missing.length > 0) {
      return { active: false, detail: `cgroup v2: ${missing.join(" and ")} not enabled in ${parent}/cgroup.subtree_control`, howToEnable: CGROUP_HOW_TO_ENABLE };
    }
    if (!writableDirectory(parent)) {
      return { active: false, detail: `cgroup v2: ${parent} is not writable by this user`, howToEnable: CGROUP_HOW_TO_ENABLE };
    }
    const parents = { memory: parent, pids: parent, ...(enabled.includes("cpu") ? { cpu: parent } : {}) };
    return { active: true, version: "v2", parents, detail: `cgroup v2, one cgroup per jail under ${parent}${enabled.includes("cpu") ? "" : "; cpu controller not enabled (no CPU limit)"}` };
  }
  return { active: false, detail: "no cgroup hierarchy with the memory and pids controllers is mounted", howToEnable: CGROUP_HOW_TO_ENABLE };
}

/**
 * Removes the empty jail cgroups (`envforge-PID-N`) that supervisors which exited
 * without closing their sandbox left behind: those whose PID no longer runs. A
 * cgroup that still holds processes is left alone (rmdir refuses it).
 * @returns the directories removed
 */
export function sweepStaleCgroups(support: Extract<CgroupSupport, { active: true }>): string[] {
  const removed: string[] = [];
  for (const parent of new Set(Object.values(support.parents))) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = /^envforge-(\d+)-\d+$/.exec(name)?.[1];
      if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
      try {
        rmdirSync(join(parent, name));
        removed.push(join(parent, name));
      } catch {
        // not empty, or already gone
      }
    }
  }
  return removed;
}

/** Counts jail cgroups, so that names are unique within this process. */
let created = 0;

/**
 * The cgroup of one jail (one directory per hierarchy), created with its limits
 * before the jail starts. {@link JailCgroup.wrap} makes the jail's first process
 * join it before it execs bubblewrap, so every process of the jail is inside
 * from the start. Removed when the jail has exited.
 */
export class JailCgroup {
  private removed = false;

  private constructor(
    private readonly support: Extract<CgroupSupport, { active: true }>,
    /** The jail cgroup's directories (one per hierarchy for v1, one for v2). */
    readonly directories: readonly string[],
    /** Memory limit written, bytes. */
    readonly memoryBytes: number,
  ) {}

  /**
   * Creates a jail cgroup with `limits`.
   * @returns the cgroup, or why it could not be created (the caller runs the jail without one and reports it)
   */
  static create(support: Extract<CgroupSupport, { active: true }>, limits: CgroupLimits): JailCgroup | { readonly error: string } {
    created += 1;
    const name = `envforge-${process.pid}-${created}`;
    // the cpu hierarchy only with a quota: a CFS group would otherwise weigh the whole jail like one
    // process against everything else on the machine, starving it under load
    const parents = [support.parents.memory, support.parents.pids, ...(limits.cpus > 0 ? [support.parents.cpu] : [])];
    const directories = [...new Set(parents.filter((parent): parent is string => parent !== undefined))].map((parent) => join(parent, name));
    const cgroup = new JailCgroup(support, directories, limits.memoryBytes);
    try {
      for (const directory of directories) mkdirSync(directory);
      const memory = join(support.parents.memory as string, name);
      const pids = join(support.parents.pids as string, name);
      if (support.version === "v1") {
        writeFileSync(join(memory, "memory.limit_in_bytes"), String(limits.memoryBytes));
        try {
          writeFileSync(join(memory, "memory.memsw.limit_in_bytes"), String(limits.memoryBytes)); // no escape into swap
        } catch {
          // swap accounting is off: nothing to limit
        }
        writeFileSync(join(pids, "pids.max"), String(limits.pids));
        if (limits.cpus > 0 && support.parents.cpu !== undefined) {
          const cpu = join(support.parents.cpu, name);
          writeFileSync(join(cpu, "cpu.cfs_period_us"), "100000");
          writeFileSync(join(cpu, "cpu.cfs_quota_us"), String(Math.round(limits.cpus * 100_000)));
        }
      } else {
        writeFileSync(join(memory, "memory.max"), String(limits.memoryBytes));
        try {
          writeFileSync(join(memory, "memory.swap.max"), "0");
        } catch {
          // no swap controller
        }
        writeFileSync(join(pids, "pids.max"), String(limits.pids));
        if (limits.cpus > 0 && support.parents.cpu !== undefined) writeFileSync(join(memory, "cpu.max"), `${Math.round(limits.cpus * 100_000)} 100000`);
      }
      return cgroup;
    } catch (error) {
      cgroup.remove();
      return { error: `cannot create the jail cgroup ${name}: ${(error as Error).message}` };
    }
  }

  /** The `cgroup.procs` files the jail's first process writes its pid to. */
  get procsFiles(): string[] {
    return this.directories.map((directory) => join(directory, "cgroup.procs"));
  }

  /**
   * `command` run by `/bin/sh`, which writes its own pid to every
   * `cgroup.procs` file and then execs the command (exit code 97 when it
   * cannot join), so no process of the jail ever runs outside the cgroup.
   */
  wrap(command: ZygoteCommand): ZygoteCommand {
    const files = this.procsFiles;
    const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 97; shift; n=$((n - 1)); done; exec "$@"';
    return { command: "/bin/sh", args: ["-c", script, "envforge-cgroup", String(files.length), ...files, command.command, ...command.args], env: command.env };
  }

  /** Out-of-memory kills in the jail so far (from `memory.oom_control` or `memory.events`). */
  oomKills(): number {
    const memory = this.directories.find((directory) => directory.startsWith(this.support.parents.memory as string)) as string;
    try {
      const text = readFileSync(join(memory, this.support.version === "v1" ? "memory.oom_control" : "memory.events"), "utf8");
      return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
    } catch {
      return 0;
    }
  }

  /**
   * Removes the cgroup's directories; call once the jail has exited. Any
   * process still inside belongs to the dead jail and is killed (SIGKILL); a
   * directory that still holds exiting processes is retried for up to a second.
   * @returns the directories that could not be removed (empty when all were)
   */
  async removeWhenEmpty(): Promise<string[]> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      this.killMembers();
      const left = this.remove();
      if (left.length === 0) return [];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.remove();
  }

  /** The pids in the cgroup's `cgroup.procs` files. */
  members(): number[] {
    const pids = new Set<number>();
    for (const file of this.procsFiles) {
      try {
        for (const line of readFileSync(file, "utf8").split("\n")) if (/^\d+$/.test(line)) pids.add(Number(line));
      } catch {
        // already removed
      }
    }
    return [...pids];
  }

  private killMembers(): void {
    for (const pid of this.members()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // exited meanwhile
      }
    }
  }

  private remove(): string[] {
    if (this.removed) return [];
    const left = this.directories.filter((directory) => {
      try {
        rmdirSync(directory);
        return false;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code !== "ENOENT";
      }
    });
    if (left.length === 0) this.removed = true;
    return left;
  }
}
