import { readdirSync, readFileSync } from "node:fs";

/** One process as seen in the host's `/proc`. */
export interface ProcessEntry {
  readonly pid: number;
  readonly parentPid: number;
  /** Process group id. */
  readonly groupId: number;
  /** Command line, arguments joined by spaces. */
  readonly commandLine: string;
  /** Resident memory in bytes. */
  readonly residentBytes: number;
}

function readProcess(pid: number): ProcessEntry | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const afterName = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parentPid = Number(afterName[1]);
    const groupId = Number(afterName[2]);
    const residentPages = Number(afterName[21]);
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, parentPid, groupId, commandLine, residentBytes: residentPages * 4096 };
  } catch {
    return null; // exited while we looked
  }
}

/** Every process under `rootPid` (not including it), from the host's `/proc`. Linux only. */
export function descendantsOf(rootPid: number): ProcessEntry[] {
  const entries = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((entry): entry is ProcessEntry => entry !== null);
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of entries) children.set(entry.parentPid, [...(children.get(entry.parentPid) ?? []), entry]);
  const found: ProcessEntry[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * Processes under `rootPid` that are not sandbox infrastructure: anything other
 * than `bwrap`, the zygotes themselves, and their idle spare children. A
 * zygote's forked processes share its command line; an idle spare stays in the
 * zygote's process group, while a child that runs (or ran) environment code
 * leads its own group (set before any environment code, and seccomp then
 * refuses `setpgid`).
 */
export function strayProcesses(rootPid: number): ProcessEntry[] {
  const all = descendantsOf(rootPid);
  const byPid = new Map(all.map((entry) => [entry.pid, entry]));
  const isBwrap = (entry: ProcessEntry) => entry.commandLine.startsWith("bwrap ") || entry.commandLine.includes("/bwrap ");
  const isZygote = (entry: ProcessEntry) => !isBwrap(entry) && entry.commandLine.includes("zygote.py");
  return all.filter((entry) => {
    if (isBwrap(entry)) return false;
    const parent = byPid.get(entry.parentPid);
    if (!isZygote(entry)) return true;
    if (!parent || !isZygote(parent)) return false; // a zygote
    return entry.groupId !== parent.groupId; // an active episode; an idle spare shares its zygote's group
  });
}

/**
 * Proportional set size of a process in bytes (`Pss` of `/proc/PID/smaps_rollup`):
 * its resident memory with pages shared by N processes counted 1/N each, so
 * forked children that share the zygote's pages are not counted twice.
 * Returns 0 when the process is gone or the kernel lacks `smaps_rollup`.
 */
export function proportionalBytes(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
