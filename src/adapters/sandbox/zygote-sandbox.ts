import { fileURLToPath } from "node:url";
import type { EnvProgram, EnvSession, Sandbox, SandboxOutcome } from "../../spec/index.js";
import { JailCgroup, probeCgroups, sweepStaleCgroups, type CgroupSupport } from "./cgroup.js";
import { Jail } from "./jail.js";
import type { ZygoteCommand } from "./zygote-process.js";
import { DEFAULT_SANDBOX_LIMITS, zygoteLimits, type SandboxLimits } from "./limits.js";
import { ZygoteSession, type JailSource } from "./zygote-session.js";

/**
 * Path of the Python zygote shipped next to this module. Its folder holds
 * `zygote.py` (the entry point) and `episode_runner.py` (what a forked child
 * runs), which the zygote imports from its own folder.
 */
export const ZYGOTE_PATH = fileURLToPath(new URL("./zygote/zygote.py", import.meta.url));

/**
 * Direct lanes per jail: episodes started while one is free answer the
 * supervisor without a hop through the zygote; the rest are served through it.
 */
export const LANES_PER_JAIL = 16;

/** What a self-test child found about its own confinement (see `self_test` in `zygote/episode_runner.py`). */
export interface SandboxSelfTest {
  /** rlimit name → [soft, hard] (-1 = unlimited). */
  readonly rlimits: Readonly<Record<string, readonly [number, number]>>;
  /** `active`, or why the filter is missing. */
  readonly seccomp: string;
  /** Operation → whether the kernel refused it (EPERM/ENOSYS) at the syscall layer. */
  readonly blocked: Readonly<Record<string, boolean>>;
  /** `isolated` (no route out), `reachable`, or an errno. */
  readonly network: string;
  readonly homeVisible: boolean;
  readonly etcVisible: boolean;
  readonly hashSeedFixed: boolean;
  readonly uid: number;
  /** Python version inside the jail. */
  readonly python: string;
}

/** Options shared by the zygote backends. */
export interface ZygoteSandboxOptions {
  /** Resource limits. @default {@link DEFAULT_SANDBOX_LIMITS} */
  readonly limits?: Partial<SandboxLimits>;
  /** Number of jails (worker slots); sessions are spread over them round-robin. @default 1 */
  readonly workers?: number;
  /** A jail is replaced by a fresh one after this many episodes. @default 1000 */
  readonly recycleAfterEpisodes?: number;
  /**
   * Direct lanes per jail (see `lane.ts`): that many live episodes per jail answer the
   * supervisor directly; the rest, and every episode when 0, are served through the zygote.
   * @default {@link LANES_PER_JAIL}
   */
  readonly lanes?: number;
  /**
   * Put every jail in its own cgroup with the `jailMemoryBytes`, `jailPids` and
   * `jailCpus` limits where this machine lets the supervisor create cgroups; where
   * it does not, jails run without one and {@link ZygoteSandbox.cgroups} says why.
   * @default true
   */
  readonly cgroups?: boolean;
  /**
   * How long a jail keeps a program loaded (with its spare episode process) after the last
   * session of it closed, milliseconds, so that a session opened soon after needs no new load.
   * @default 0 (forgotten at once)
   */
  readonly programLingerMs?: number;
}

/**
 * The part of a backend that differs: how a zygote is started. Implemented by
 * the `bwrap` and `process` backends.
 */
export interface ZygoteLauncher {
  /** Backend name, e.g. `bwrap`. */
  readonly name: string;
  /** Command that starts one zygote. */
  command(): ZygoteCommand;
  /** Frees what the launcher holds (e.g. a private temp directory). */
  dispose(): void;
}

/**
 * A {@link Sandbox} built from long-lived zygote processes ("jails"): one per
 * worker slot, recycled after a configured number of episodes or when one dies.
 * Backends differ only in their {@link ZygoteLauncher}.
 */
export class ZygoteSandbox implements Sandbox {
  readonly name: string;
  /** Effective limits. */
  readonly limits: SandboxLimits;
  private readonly workers: number;
  private readonly recycleAfterEpisodes: number;
  private readonly lanes: number;
  private readonly programLingerMs: number;
  /**
   * Whether jails get their own cgroup, and why not when they do not (cgroups
   * disabled by option, not writable here, or the last creation failed).
   */
  cgroups: CgroupSupport;
  private readonly slots: (Jail | null)[];
  private readonly retiring = new Set<Jail>();
  private readonly sessions = new Set<ZygoteSession>();
  private nextChildId = 1;
  private nextSlot = 0;
  /** Programs loaded per jail, shared by the sessions of the same sources (see {@link JailSource.acquireProgram}). */
  private readonly programs = new WeakMap<Jail, SharedPrograms>();

  constructor(
    private readonly launcher: ZygoteLauncher,
    options: ZygoteSandboxOptions = {},
  ) {
    this.name = launcher.name;
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.workers = Math.max(1, options.workers ?? 1);
    this.recycleAfterEpisodes = Math.max(1, options.recycleAfterEpisodes ?? 1000);
    this.lanes = Math.max(0, options.lanes ?? LANES_PER_JAIL);
    this.programLingerMs = Math.max(0, options.programLingerMs ?? 0);
    this.cgroups =
      options.cgroups === false
        ? { active: false, detail: "disabled by the caller (cgroups: false)", howToEnable: "leave the cgroups option at its default (true)" }
        : probeCgroups();
    if (this.cgroups.active) sweepStaleCgroups(this.cgroups);
    this.slots = Array.from({ length: this.workers }, () => null);
  }

  async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
    const slot = this.nextSlot;
    this.nextSlot = (this.nextSlot + 1) % this.workers;
    const session = new ZygoteSession(this.jailSource(), slot, program, this.limits, (closed) => this.sessions.delete(closed));
    this.sessions.add(session);
    const loaded = await session.load();
    if (loaded.kind !== "ok") {
      await session.close();
      return loaded;
    }
    return { kind: "ok", value: session };
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
    const jails = [...this.slots.filter((jail): jail is Jail => jail !== null), ...this.retiring];
    this.slots.fill(null);
    this.retiring.clear();
    await Promise.all(jails.map((jail) => jail.close()));
    this.launcher.dispose();
  }

  /**
   * Forks one self-test child in a jail and returns what it found: rlimits,
   * whether seccomp loaded and which syscalls it refused (fork, sockets, execve,
   * kill of the parent, setsid), whether the network is reachable, whether
   * `/etc/passwd` or a home directory are visible. Used by `envforge sandbox doctor`.
   */
  async selfTest(): Promise<SandboxSelfTest | { readonly error: string }> {
    const jail = this.jailFor(0);
    const id = this.jailSource().nextId();
    const reply = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(JSON.stringify({ error: "self-test timed out" })), this.limits.callTimeoutMs);
      jail.listen(id, (message) => {
        clearTimeout(timer);
        resolve(message.kind === "reply" ? message.payload.toString("utf8") : JSON.stringify({ error: message.failure.message }));
      });
      jail.send(id, "T", JSON.stringify({ limits: zygoteLimits(this.limits) }));
    });
    await jail.end(id);
    return JSON.parse(reply) as SandboxSelfTest | { readonly error: string };
  }

  /** Process ids of the live jails' outermost processes (for diagnostics and tests). */
  jailProcessIds(): number[] {
    return [...this.slots, ...this.retiring].flatMap((jail) => (jail && !jail.dead && jail.pid !== undefined ? [jail.pid] : []));
  }

  private jailSource(): JailSource {
    return {
      jailFor: (slot) => this.jailFor(slot),
      nextId: () => {
        this.nextChildId = this.nextChildId >= 0x7ffffff0 ? 1 : this.nextChildId + 1; // the zygote numbers its spares from 0x80000000
        return this.nextChildId;
      },
      episodeStarted: (jail) => {
        jail.episodesStarted += 1;
        if (jail.episodesStarted >= this.recycleAfterEpisodes) jail.retired = true;
        this.closeIdleRetired();
      },
      acquireProgram: (jail, key, load) => this.sharedPrograms(jail).acquire(key, load),
      releaseProgram: (jail, programId) => this.sharedPrograms(jail).release(programId),
    };
  }

  private sharedPrograms(jail: Jail): SharedPrograms {
    let programs = this.programs.get(jail);
    if (programs === undefined) {
      programs = new SharedPrograms((programId) => {
        if (!jail.dead) jail.send(programId, "U");
      }, this.programLingerMs);
      this.programs.set(jail, programs);
    }
    return programs;
  }

  private jailFor(slot: number): Jail {
    const current = this.slots[slot];
    if (current && !current.retired) return current;
    if (current) this.retiring.add(current);
    const jail = new Jail(this.launcher.command(), {
      maxEnvelopeBytes: this.limits.maxFrameBytes + 64 * 1024,
      maxFrameBytes: this.limits.maxFrameBytes,
      lanes: this.lanes,
      ...this.jailCgroup(),
    });
    this.slots[slot] = jail;
    this.closeIdleRetired();
    return jail;
  }

  /** A cgroup for a new jail where cgroups are active; a failure to create one is reported in {@link cgroups}. */
  private jailCgroup(): { cgroup?: JailCgroup } {
    if (!this.cgroups.active) return {};
    const cgroup = JailCgroup.create(this.cgroups, { memoryBytes: this.limits.jailMemoryBytes, pids: this.limits.jailPids, cpus: this.limits.jailCpus });
    if (cgroup instanceof JailCgroup) return { cgroup };
    this.cgroups = { active: false, detail: cgroup.error, howToEnable: "check that the cgroup hierarchies are writable and not full" };
    return {};
  }

  /** Directories of the live jails' cgroups (for diagnostics and tests). */
  jailCgroupDirectories(): string[] {
    return [...this.slots, ...this.retiring].flatMap((jail) => (jail && !jail.dead ? jail.cgroupDirectories : []));
  }

  /** Retired jails close once no episode of theirs is live. */
  private closeIdleRetired(): void {
    for (const jail of this.retiring) {
      if (jail.dead || jail.liveChildren === 0) {
        this.retiring.delete(jail);
        void jail.close();
      }
    }
  }
}

/** One jail's loaded programs, keyed by their load request (sources and limits), with the number of sessions holding each. */
class SharedPrograms {
  private readonly byKey = new Map<
    string,
    { loading: Promise<SandboxOutcome<number>>; programId: number | null; holders: number; linger: ReturnType<typeof setTimeout> | null }
  >();
  private readonly keyOf = new Map<number, string>();

  /**
   * @param forget tells the zygote to drop a program nobody holds any more
   * @param lingerMs how long an unheld program stays loaded, milliseconds
   */
  constructor(
    private readonly forget: (programId: number) => void,
    private readonly lingerMs: number,
  ) {}

  async acquire(key: string, load: () => Promise<SandboxOutcome<number>>): Promise<SandboxOutcome<number>> {
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      const created = { loading: load(), programId: null as number | null, holders: 0, linger: null };
      this.byKey.set(key, created);
      entry = created;
    }
    if (entry.linger !== null) {
      clearTimeout(entry.linger);
      entry.linger = null;
    }
    entry.holders += 1;
    const outcome = await entry.loading;
    if (outcome.kind !== "ok") {
      // a failed load is not kept: the next session retries it (and reports its own failure)
      entry.holders -= 1;
      if (this.byKey.get(key) === entry) this.byKey.delete(key);
      return outcome;
    }
    entry.programId = outcome.value;
    this.keyOf.set(outcome.value, key);
    return outcome;
  }

  release(programId: number): void {
    const key = this.keyOf.get(programId);
    const entry = key === undefined ? undefined : this.byKey.get(key);
    if (key === undefined || entry === undefined || entry.programId !== programId) return;
    entry.holders -= 1;
    if (entry.holders > 0) return;
    const drop = () => {
      if (this.byKey.get(key) !== entry || entry.holders > 0) return;
      this.byKey.delete(key);
      this.keyOf.delete(programId);
      this.forget(programId);
    };
    if (this.lingerMs === 0) {
      drop();
      return;
    }
    entry.linger = setTimeout(drop, this.lingerMs);
    entry.linger.unref();
  }
}
