import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { SandboxUnavailableError } from "../../spec/index.js";
import type { ZygoteCommand } from "./zygote-process.js";
import { DEFAULT_SANDBOX_LIMITS } from "./limits.js";
import { ZYGOTE_PATH, ZygoteSandbox, type ZygoteLauncher, type ZygoteSandboxOptions } from "./zygote-sandbox.js";

/** Options of {@link BwrapSandbox}. */
export interface BwrapSandboxOptions extends ZygoteSandboxOptions {
  /** Python interpreter inside the jail; must live under `/usr`. @default "/usr/bin/python3" */
  readonly python?: string;
  /** bubblewrap binary. @default "bwrap" */
  readonly bwrap?: string;
}

/** Where the zygote's folder (`zygote.py`, `episode_runner.py`) is bound read-only inside the jail. */
const JAILED_ZYGOTE_DIR = "/opt/envforge";
const JAILED_ZYGOTE = `${JAILED_ZYGOTE_DIR}/zygote.py`;

/**
 * bubblewrap arguments of a jail: every namespace unshared (network included),
 * a new session, dies with its parent, all capabilities dropped, an
 * unprivileged uid/gid (65534), cleared environment with a fixed hash seed,
 * read-only `/usr` (and the `/lib`, `/bin` links into it), a minimal `/dev`, a
 * size-capped tmpfs at `/tmp`; no `/proc`, no `/etc`, no home.
 *
 * @param tmpBytes size of the `/tmp` tmpfs in bytes
 */
export function bwrapJailArgs(tmpBytes: number): string[] {
  return [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop", "ALL",
    "--uid", "65534",
    "--gid", "65534",
    "--clearenv",
    "--setenv", "PYTHONHASHSEED", "0",
    "--setenv", "PATH", "/usr/bin",
    "--ro-bind", "/usr", "/usr",
    "--symlink", "usr/lib", "/lib",
    "--symlink", "usr/lib64", "/lib64",
    "--symlink", "usr/bin", "/bin",
    "--dev", "/dev",
    "--size", String(tmpBytes),
    "--tmpfs", "/tmp",
    "--chdir", "/tmp",
  ];
}

function bwrapLauncher(bwrap: string, python: string, tmpBytes: number): ZygoteLauncher {
  return {
    name: "bwrap",
    command(): ZygoteCommand {
      return {
        command: bwrap,
        args: [...bwrapJailArgs(tmpBytes), "--ro-bind", dirname(ZYGOTE_PATH), JAILED_ZYGOTE_DIR, python, "-S", "-s", "-P", "-B", JAILED_ZYGOTE, "--tmp", "/tmp"],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      };
    },
    dispose: () => undefined,
  };
}

/**
 * Sandbox backend (default on Linux): long-lived bubblewrap jails, each running
 * one single-threaded Python zygote (see `zygote.py`) that forks a fresh,
 * rlimited, seccomp-filtered process per episode from a template of the loaded
 * program. Jail arguments: {@link bwrapJailArgs}.
 *
 * @throws SandboxUnavailableError from the constructor when `bwrap`, the
 *   interpreter or the zygote is missing, or user namespaces are disabled
 */
export class BwrapSandbox extends ZygoteSandbox {
  constructor(options: BwrapSandboxOptions = {}) {
    const python = options.python ?? "/usr/bin/python3";
    const bwrap = options.bwrap ?? "bwrap";
    const tmpBytes = options.limits?.tmpBytes ?? DEFAULT_SANDBOX_LIMITS.tmpBytes;
    if (!python.startsWith("/usr/")) {
      throw new SandboxUnavailableError(`sandbox python must live under /usr (got ${python}); install Debian's python3`);
    }
    if (!existsSync(python)) {
      throw new SandboxUnavailableError(`${python} not found; install it with: apt-get install -y python3`);
    }
    if (!existsSync(ZYGOTE_PATH)) {
      throw new SandboxUnavailableError(`zygote not found at ${ZYGOTE_PATH}; rebuild with npm run build`);
    }
    try {
      execFileSync(bwrap, [...bwrapJailArgs(tmpBytes), "/usr/bin/true"], { stdio: "pipe", timeout: 10_000 });
    } catch (error) {
      const detail = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
      throw new SandboxUnavailableError(
        `bubblewrap cannot start a jail here (${detail}); install it with: apt-get install -y bubblewrap, and make sure unprivileged user namespaces are enabled`,
        { cause: error },
      );
    }
    super(bwrapLauncher(bwrap, python, tmpBytes), options);
  }
}
