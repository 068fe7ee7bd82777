import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  EnvforgeError,
  SandboxUnavailableError,
  type CommandResult,
  type SandboxOutcome,
  type TerminalRuntime,
  type TerminalSession,
  type TerminalTask,
  type VerifierResult,
} from "../../spec/index.js";
import { JailCgroup, probeCgroups, sweepStaleCgroups, type CgroupSupport } from "../sandbox/cgroup.js";
import { ensureRoot, ImageBuildError, type RootFilesystemOptions } from "./root-filesystem.js";
import { taskFolderDigest } from "./harbor-task.js";

/** Prefix of an episode's run folder in the temporary folder: `envforge-terminal-<supervisor pid>-<random>`. */
const RUN_FOLDER_PREFIX = "envforge-terminal-";

/** Removes the run folders (empty mount points) that supervisors which no longer run left behind. */
function sweepStaleRunFolders(): void {
  const pattern = new RegExp(`^${RUN_FOLDER_PREFIX}(\\d+)-`);
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      // only a supervisor that no longer exists (ESRCH) left it; EPERM is another user's live one
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") continue;
      try {
        rmSync(join(tmpdir(), name), { recursive: true, force: true });
      } catch {
        // not ours to remove
      }
    }
  }
}

/** The jail holder program (Python, host interpreter): mounts the episode's root and runs its processes. */
export const TERMINAL_JAIL_PATH = fileURLToPath(new URL("./terminal_jail.py", import.meta.url));

/** Options of {@link TerminalJailRuntime}. */
export interface TerminalJailOptions extends RootFilesystemOptions {
  /** Host Python that runs the holder (needs python3-seccomp for the filter). @default "/usr/bin/python3" */
  readonly python?: string;
  /** bubblewrap binary. @default "bwrap" */
  readonly bwrap?: string;
  /** Largest output kept of one command or of the tests, bytes (head and tail; the middle is cut). @default 16000 */
  readonly maxOutputBytes?: number;
  /** Processes and threads in one episode's cgroup at once. @default 256 */
  readonly pids?: number;
  /** Refuse to start episodes when the seccomp filter cannot be built (python3-seccomp missing). @default true */
  readonly requireSeccomp?: boolean;
  /** Where cgroups are created (probed once when absent). */
  readonly cgroups?: CgroupSupport;
  /**
   * Grant the network to tasks that declare it. A jail with the network shares the host's network
   * namespace, loopback included (the host's `envforge serve`, dashboard and trainer listen there),
   * so it is the operator's choice, never a task's. @default false (such tasks are refused: `forbidden`)
   */
  readonly allowNetwork?: boolean;
  /**
   * Sessions (roots with their holder, tmpfs and cgroup) open at once; one more is refused with a
   * failure outcome until one closes. Bounds what clients of `envforge serve` can hold. @default 32
   */
  readonly maxSessions?: number;
}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** A terminal jail died or refused a request; the episode cannot go on. */
export class TerminalJailError extends EnvforgeError {
  constructor(message: string) {
    super("terminal_jail_failed", message);
  }
}

/** One live holder process and its request queue. */
class JailedRoot implements TerminalSession {
  private readonly pending: Pending[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private dead: string | null = null;
  private closed = false;
  private stderrTail = "";
  private readonly exited: Promise<void>;
  /** Called once when the session is closed (the runtime forgets it). */
  onClosed: () => void = () => undefined;

  constructor(
    private readonly process: ChildProcess,
    private readonly task: TerminalTask,
    private readonly runDir: string,
    private readonly cgroup: JailCgroup | null,
    readonly ready: Promise<Record<string, unknown>>,
  ) {
    this.exited = new Promise((resolvePromise) => process.on("close", () => resolvePromise()));
  }

  static start(command: string, args: readonly string[], task: TerminalTask, runDir: string, cgroup: JailCgroup | null): JailedRoot {
    const plain = { command, args, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };
    const started = cgroup ? cgroup.wrap(plain) : plain;
    const child = spawn(started.command, [...started.args], { stdio: ["pipe", "pipe", "pipe"], detached: true, env: { ...started.env } });
    let readyResolve: (value: Record<string, unknown>) => void = () => undefined;
    let readyReject: (error: Error) => void = () => undefined;
    const ready = new Promise<Record<string, unknown>>((resolvePromise, rejectPromise) => {
      readyResolve = resolvePromise;
      readyReject = rejectPromise;
    });
    const root = new JailedRoot(child, task, runDir, cgroup, ready);
    root.pending.push({ resolve: readyResolve, reject: readyReject });
    createInterface({ input: child.stdout }).on("line", (line) => root.onLine(line));
    child.stderr.on("data", (chunk: Buffer) => {
      root.stderrTail = (root.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    child.stdin.on("error", () => undefined);
    child.on("error", (error) => root.onDeath(`the terminal jail failed to start: ${error.message}`));
    child.on("close", (code, signal) => root.onDeath(`the terminal jail exited (${signal ?? `code ${code}`})${root.stderrTail ? `: ${root.stderrTail.trim()}` : ""}`));
    return root;
  }

  private onLine(line: string): void {
    const waiter = this.pending.shift();
    if (waiter === undefined) return;
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(line) as Record<string, unknown>;
    } catch {
      waiter.reject(new TerminalJailError(`the terminal jail answered something that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (answer.ok === true) waiter.resolve(answer);
    else waiter.reject(new TerminalJailError(String(answer.error ?? "the terminal jail refused the request")));
  }

  private onDeath(message: string): void {
    if (this.dead !== null) return;
    this.dead = message;
    for (const waiter of this.pending.splice(0)) waiter.reject(new TerminalJailError(message));
  }

  private request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const next = this.queue.then(
      () =>
        new Promise<Record<string, unknown>>((resolvePromise, rejectPromise) => {
          if (this.dead !== null || this.closed) {
            rejectPromise(new TerminalJailError(this.dead ?? "the terminal session is closed"));
            return;
          }
          this.pending.push({ resolve: resolvePromise, reject: rejectPromise });
          this.process.stdin?.write(`${JSON.stringify(body)}\n`);
        }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  async run(command: string, timeoutMs: number): Promise<CommandResult> {
    return commandResult(await this.request({ op: "exec", command, timeoutMs }));
  }

  /** Runs one set-up command from `workdir` in a shell of its own. */
  async setup(command: string, workdir: string, timeoutMs: number): Promise<CommandResult> {
    return commandResult(await this.request({ op: "setup", command: `cd '${workdir.replace(/'/g, "'\\''")}' && ${command}`, timeoutMs }));
  }

  async copyIn(from: string, to: string): Promise<void> {
    await this.request({ op: "copy", from, to });
  }

  async verify(): Promise<VerifierResult> {
    const answer = await this.request({ op: "verify", tests: this.task.testsDir, timeoutMs: Math.round(this.task.verifierTimeoutSec * 1000) });
    return {
      reward: typeof answer.reward === "number" ? answer.reward : null,
      rewardError: typeof answer.rewardError === "string" ? answer.rewardError : null,
      output: String(answer.output ?? ""),
      exitCode: typeof answer.exitCode === "number" ? answer.exitCode : null,
      timedOut: answer.timedOut === true,
      ms: Number(answer.ms ?? 0),
    };
  }

  async diskBytes(): Promise<number> {
    return Number((await this.request({ op: "usage" })).bytes ?? 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
    this.process.stdin?.end();
    const timer = setTimeout(() => this.kill(), 2000);
    await this.exited;
    clearTimeout(timer);
    this.kill();
    await this.cgroup?.removeWhenEmpty();
    rmSync(this.runDir, { recursive: true, force: true });
  }

  kill(): void {
    if (this.process.pid === undefined) return;
    try {
      process.kill(-this.process.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

function commandResult(answer: Record<string, unknown>): CommandResult {
  return {
    output: String(answer.output ?? ""),
    exitCode: typeof answer.exitCode === "number" ? answer.exitCode : null,
    timedOut: answer.timedOut === true,
    truncated: answer.truncated === true,
    shellRestarted: answer.shellRestarted === true,
    ms: Number(answer.ms ?? 0),
  };
}

/**
 * The terminal runtime: each session is a holder process (`terminal_jail.py`) in a private mount
 * namespace and, where cgroups can be made, a cgroup of its own (memory `task.memoryMb`, pids,
 * CPU `task.cpus`). The holder lays a copy-on-write overlay over the cached base root on a tmpfs
 * of `task.storageMb` (the disk limit), and every process of the episode runs in a bubblewrap
 * jail over it: all namespaces unshared (network too, unless the operator allows a task's network), capabilities
 * dropped, a seccomp filter that refuses mount, namespaces, ptrace, kernel modules, bpf and the
 * like. Roots are prepared per session from the task's set-up steps.
 */
export class TerminalJailRuntime implements TerminalRuntime {
  private readonly sessions = new Set<JailedRoot>();
  private readonly python: string;
  private readonly bwrap: string;
  private cgroups: CgroupSupport | undefined;

  constructor(private readonly options: TerminalJailOptions = {}) {
    this.python = options.python ?? "/usr/bin/python3";
    this.bwrap = options.bwrap ?? "bwrap";
    this.cgroups = options.cgroups;
    if (!existsSync(this.python)) throw new SandboxUnavailableError(`${this.python} not found; install it with: apt-get install -y python3`);
    if (!existsSync(TERMINAL_JAIL_PATH)) throw new SandboxUnavailableError(`terminal jail not found at ${TERMINAL_JAIL_PATH}; rebuild with npm run build`);
  }

  async open(task: TerminalTask): Promise<SandboxOutcome<TerminalSession>> {
    if (task.network && this.options.allowNetwork !== true) {
      return {
        kind: "forbidden",
        message: `${task.name} asks for the network (allow_internet or network_mode = "public"); a jail with the network reaches the host's loopback services, so it is granted only when the operator allows it (TerminalJailRuntime allowNetwork)`,
      };
    }
    // a stored task plays the files it was admitted with, or not at all (its folder edited or gone since)
    if (task.filesDigest !== undefined) {
      let digest: string;
      try {
        digest = taskFolderDigest(task.folder);
      } catch (error) {
        return { kind: "crash", message: `${task.name}: its task folder ${task.folder} cannot be read (${(error as Error).message}); restore it where the store expects it` };
      }
      if (digest !== task.filesDigest) {
        return { kind: "crash", message: `${task.name}: the files in ${task.folder} changed since the task was read (its content id names the old files); read the folder again to play it as a new environment` };
      }
    }
    const maxSessions = this.options.maxSessions ?? 32;
    if (this.sessions.size >= maxSessions) {
      return { kind: "forbidden", message: `the terminal runtime already holds ${maxSessions} sessions (its maxSessions); close one first` };
    }
    let lower: string;
    try {
      lower = await ensureRoot(task.image, this.options);
    } catch (error) {
      // an image that does not build is the task's problem (an outcome); no mmdebstrap is the machine's (thrown)
      if (!(error instanceof ImageBuildError)) throw error;
      return { kind: "crash", message: `the task's image could not be built: ${error.message}` };
    }
    if (this.cgroups === undefined) {
      this.cgroups = probeCgroups();
      if (this.cgroups.active) sweepStaleCgroups(this.cgroups);
      sweepStaleRunFolders();
    }
    const runDir = mkdtempSync(join(tmpdir(), `${RUN_FOLDER_PREFIX}${process.pid}-`));
    let cgroup: JailCgroup | null = null;
    if (this.cgroups.active) {
      const created = JailCgroup.create(this.cgroups, { memoryBytes: task.memoryMb * 1024 * 1024, pids: this.options.pids ?? 256, cpus: task.cpus });
      cgroup = created instanceof JailCgroup ? created : null;
    }
    const config = {
      lower,
      runDir,
      diskBytes: task.storageMb * 1024 * 1024,
      workdir: task.workdir,
      env: task.env,
      bwrap: this.bwrap,
      network: task.network,
      maxOutputBytes: this.options.maxOutputBytes ?? 16_000,
      requireSeccomp: this.options.requireSeccomp ?? true,
      binds: (task.readOnlyBinds ?? []).map((bind) => ({ host: bind.host, jail: bind.jail })),
    };
    const userArgs = process.getuid?.() === 0 ? [] : ["--user", "--map-root-user"];
    const root = JailedRoot.start("unshare", [...userArgs, "--mount", "--propagation", "private", this.python, TERMINAL_JAIL_PATH, JSON.stringify(config)], task, runDir, cgroup);
    this.sessions.add(root);
    root.onClosed = () => this.sessions.delete(root);
    const fail = async (message: string, detail?: string): Promise<SandboxOutcome<TerminalSession>> => {
      await root.close();
      return detail === undefined ? { kind: "crash", message } : { kind: "crash", message, detail };
    };
    try {
      await root.ready;
    } catch (error) {
      return fail(`the terminal root could not be prepared: ${(error as Error).message}`);
    }
    const budgetMs = Math.round(task.verifierTimeoutSec * 1000);
    for (const step of task.setup) {
      try {
        if (step.kind === "copy") {
          await root.copyIn(step.from, step.to);
          continue;
        }
        const result = await root.setup(step.command, step.workdir, budgetMs);
        if (result.exitCode !== 0) {
          const why = result.timedOut ? `timed out after ${budgetMs} ms` : result.exitCode === null ? "the shell ended" : `exit ${result.exitCode}`;
          const tail = result.output.trim().split("\n").slice(-3).join(" | ").slice(-300);
          return fail(`set-up step RUN ${step.command.slice(0, 120)} failed (${why})${tail === "" ? "" : `: ${tail}`}`, result.output.slice(-2000));
        }
      } catch (error) {
        return fail(`set-up step ${step.kind === "copy" ? `COPY to ${step.to}` : `RUN ${step.command.slice(0, 120)}`} failed: ${(error as Error).message}`);
      }
    }
    return { kind: "ok", value: root };
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
    this.sessions.clear();
  }
}
