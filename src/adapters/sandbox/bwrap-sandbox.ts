import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SandboxUnavailableError, type EnvProgram, type EnvSession, type Sandbox, type SandboxOutcome } from "../../spec/index.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
import { RunnerSession, type RunnerCommand } from "./runner-session.js";

/** Path of the Python runner shipped next to this module. */
export const RUNNER_PATH = fileURLToPath(new URL("./runner.py", import.meta.url));

/** Options of {@link BwrapSandbox}. */
export interface BwrapSandboxOptions {
  /** Resource limits. @default {@link DEFAULT_SANDBOX_LIMITS} */
  readonly limits?: Partial<SandboxLimits>;
  /** Python interpreter inside the jail; must live under `/usr`. @default "/usr/bin/python3" */
  readonly python?: string;
  /** bubblewrap binary. @default "bwrap" */
  readonly bwrap?: string;
}

/**
 * Sandbox backend that runs each session's Python runner inside a bubblewrap
 * jail: every namespace unshared (no network), a new session, dies with its
 * parent, cleared environment with a fixed hash seed, read-only `/usr`, a
 * size-capped tmpfs at `/tmp`, and nothing of the host's home or `/etc`.
 * Inside, the runner applies rlimits (address space, CPU, file size, no core).
 *
 * @throws SandboxUnavailableError from the constructor when `bwrap`, the
 *   interpreter or the runner is missing, or user namespaces are disabled
 */
export class BwrapSandbox implements Sandbox {
  readonly name = "bwrap";
  private readonly limits: SandboxLimits;
  private readonly python: string;
  private readonly bwrap: string;
  private readonly sessions = new Set<EnvSession>();

  constructor(options: BwrapSandboxOptions = {}) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    this.python = options.python ?? "/usr/bin/python3";
    this.bwrap = options.bwrap ?? "bwrap";
    if (!this.python.startsWith("/usr/")) {
      throw new SandboxUnavailableError(`sandbox python must live under /usr (got ${this.python}); install Debian's python3`);
    }
    if (!existsSync(this.python)) {
      throw new SandboxUnavailableError(`${this.python} not found; install it with: apt-get install -y python3`);
    }
    if (!existsSync(RUNNER_PATH)) {
      throw new SandboxUnavailableError(`runner not found at ${RUNNER_PATH}; rebuild with npm run build`);
    }
    try {
      execFileSync(this.bwrap, [...this.jailArgs(), "/usr/bin/true"], { stdio: "pipe", timeout: 10_000 });
    } catch (error) {
      const detail = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
      throw new SandboxUnavailableError(
        `bubblewrap cannot start a jail here (${detail}); install it with: apt-get install -y bubblewrap, and make sure unprivileged user namespaces are enabled`,
        { cause: error },
      );
    }
  }

  async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
    const session = new RunnerSession(this.command(), this.limits, (closed) => this.sessions.delete(closed));
    this.sessions.add(session);
    const loaded = await session.load(program);
    if (loaded.kind !== "ok") {
      await session.close();
      return loaded;
    }
    return { kind: "ok", value: session };
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }

  private command(): RunnerCommand {
    return {
      command: this.bwrap,
      args: [
        ...this.jailArgs(),
        "--ro-bind", RUNNER_PATH, "/opt/envforge/runner.py",
        this.python, "-S", "-s", "-B", "/opt/envforge/runner.py",
      ],
    };
  }

  private jailArgs(): string[] {
    return [
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
      "--setenv", "PYTHONHASHSEED", "0",
      "--setenv", "PATH", "/usr/bin",
      "--ro-bind", "/usr", "/usr",
      "--symlink", "usr/lib", "/lib",
      "--symlink", "usr/lib64", "/lib64",
      "--symlink", "usr/bin", "/bin",
      "--proc", "/proc",
      "--dev", "/dev",
      "--size", String(this.limits.tmpBytes),
      "--tmpfs", "/tmp",
      "--chdir", "/tmp",
    ];
  }
}
