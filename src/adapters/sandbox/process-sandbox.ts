import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxUnavailableError } from "../../spec/index.js";
import { ZYGOTE_PATH, ZygoteSandbox, type ZygoteLauncher, type ZygoteSandboxOptions } from "./zygote-sandbox.js";

/** Options of {@link ProcessSandbox}. */
export interface ProcessSandboxOptions extends ZygoteSandboxOptions {
  /**
   * Must be `true`: the caller states that the environment code is trusted,
   * because this backend has no kernel namespaces (the host's files and network
   * are reachable from the episode process). @default false (the constructor refuses)
   */
  readonly trustedCode?: boolean;
  /** Python interpreter. @default "/usr/bin/python3" */
  readonly python?: string;
  /** Receives the warning printed on every start. @default writes to stderr */
  readonly warn?: (message: string) => void;
}

/** The warning {@link ProcessSandbox} prints on every start. */
export const PROCESS_SANDBOX_WARNING =
  "envforge: the `process` sandbox runs environment code WITHOUT kernel isolation (no namespaces: the host's files and network are reachable); only rlimits, the audit hook and seccomp (when available) apply. Use it only for trusted code.";

function processLauncher(python: string): ZygoteLauncher {
  let root: string | null = null;
  return {
    name: "process",
    command() {
      root ??= mkdtempSync(join(tmpdir(), "envforge-process-sandbox-"));
      return {
        command: python,
        // the parent-death signal needs ctypes in the zygote (see capture_prctl in zygote/episode_runner.py); no pid namespace here kills orphans
        args: ["-S", "-s", "-P", "-B", ZYGOTE_PATH, "--tmp", root, "--parent-death-signal"],
        env: { PYTHONHASHSEED: "0", PATH: "/usr/bin:/bin" },
      };
    },
    dispose() {
      if (root !== null) rmSync(root, { recursive: true, force: true });
      root = null;
    },
  };
}

/**
 * Opt-in sandbox backend for machines without bubblewrap (macOS, locked-down
 * hosts): the same zygote protocol, per-episode processes, rlimits, audit hook
 * and seccomp where available, but no namespaces. Refuses to start unless
 * `trustedCode: true`, and warns on every start.
 *
 * @throws SandboxUnavailableError when `trustedCode` is not `true` or the interpreter is missing
 */
export class ProcessSandbox extends ZygoteSandbox {
  constructor(options: ProcessSandboxOptions = {}) {
    if (options.trustedCode !== true) {
      throw new SandboxUnavailableError(
        "the `process` sandbox has no kernel isolation and runs only code you trust; pass trustedCode: true (config sandbox.trustedCode) to use it, or use the bwrap backend",
      );
    }
    const python = options.python ?? "/usr/bin/python3";
    if (!existsSync(python)) throw new SandboxUnavailableError(`${python} not found; install Python 3.11 or newer`);
    if (!existsSync(ZYGOTE_PATH)) throw new SandboxUnavailableError(`zygote not found at ${ZYGOTE_PATH}; rebuild with npm run build`);
    (options.warn ?? ((message: string) => process.stderr.write(`${message}\n`)))(PROCESS_SANDBOX_WARNING);
    super(processLauncher(python), options);
  }
}
