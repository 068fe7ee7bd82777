import type { SandboxOutcome } from "./sandbox.js";

/**
 * Terminal environments: tasks an agent solves by running shell commands in a jailed root file
 * system, checked by tests inside that root (the Harbor task format, successor of Terminal-Bench's:
 * `task.toml`, `instruction.md`, `environment/`, `tests/test.sh`, `solution/solve.sh`). The
 * environment-evolution source builds and measures its method on this domain.
 * @module
 */

/** The Debian root a terminal task's episodes start from: a release and the packages installed in it. */
export interface TerminalImage {
  /** Debian release (only `bookworm`, the host's archive, is built). */
  readonly suite: string;
  /** Debian packages installed on top of `minbase`, sorted, without duplicates. */
  readonly packages: readonly string[];
}

/** One step that prepares a fresh root before the agent acts, in Dockerfile order. */
export type TerminalSetupStep =
  /** Copies a file or folder of the task's `environment/` (absolute host path) to `to` in the root. */
  | { readonly kind: "copy"; readonly from: string; readonly to: string }
  /** Runs a shell command (a Dockerfile RUN that is not a package install) in the jail, without network. */
  | { readonly kind: "run"; readonly command: string; readonly workdir: string };

/** A terminal task read from a Harbor task folder; every path is absolute on the host. */
export interface TerminalTask {
  /** Task name (`[task].name` of task.toml, else the folder's name). */
  readonly name: string;
  /** The task folder. */
  readonly folder: string;
  /** `instruction.md`: what the agent is asked to do. */
  readonly instruction: string;
  readonly image: TerminalImage;
  readonly setup: readonly TerminalSetupStep[];
  /** Working directory of the agent's shell and the tests (Dockerfile WORKDIR). @default "/root" */
  readonly workdir: string;
  /** Environment variables of every process in the root (Dockerfile ENV, `[environment].env`). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether the task declares network access (`allow_internet` or `network_mode = "public"`). @default false */
  readonly network: boolean;
  /** `tests/`: copied to /tests only when the verifier runs. */
  readonly testsDir: string;
  /** The text of `tests/test.sh`. */
  readonly tests: string;
  /** `solution/` with `solve.sh`, or null when the task has none. */
  readonly solutionDir: string | null;
  /** The text of `solution/solve.sh`, or null when the task has none. */
  readonly solution: string | null;
  /** Wall-clock budget of the agent's whole episode, seconds (`[agent].timeout_sec`). @default 600 */
  readonly agentTimeoutSec: number;
  /** Wall-clock budget of the tests, seconds (`[verifier].timeout_sec`). @default 120 */
  readonly verifierTimeoutSec: number;
  /** Size of the episode's disk (the root's writable layer), MiB (`[environment].storage_mb`). @default 256 */
  readonly storageMb: number;
  /** Memory of the episode's cgroup, MiB (`[environment].memory_mb`). @default 1024 */
  readonly memoryMb: number;
  /** CPU of the episode's cgroup in cores (`[environment].cpus`); 0 = no limit. @default 1 */
  readonly cpus: number;
  /** `[metadata]` of task.toml, as written (difficulty, category, tags, …). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * sha256 (hex) over every file of the folder, paths and bytes in path order (`expected.json` and
   * dot-files left out), so a package's content id changes with the task's data files and
   * Dockerfile too. Set by the Harbor reader; absent on a task built by hand.
   */
  readonly filesDigest?: string;
  /**
   * Host folders bound read-only into the root (`host` at `jail`, an absolute path). Set by
   * envforge's own adapters only (the OpenEnv session binds OpenEnv's modules); the Harbor reader
   * never sets it, so a task folder cannot ask for a host path. @default none
   */
  readonly readOnlyBinds?: readonly { readonly host: string; readonly jail: string }[];
}

/** What one command in the agent's shell gave. */
export interface CommandResult {
  /** stdout and stderr merged; past the cap the middle is cut and the cut is said in the text. */
  readonly output: string;
  /** The command's exit status; null when it timed out or the shell ended (`exit`). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** The output was longer than the cap. */
  readonly truncated: boolean;
  /** The shell ended or was killed: the next command starts a new one (working directory reset, background processes gone, files kept). */
  readonly shellRestarted: boolean;
  /** Wall time of the command, milliseconds. */
  readonly ms: number;
}

/** What the task's tests gave at the end of an episode. */
export interface VerifierResult {
  /** The reward the tests wrote to /logs/verifier/reward.txt; null when there is none (see `rewardError`). */
  readonly reward: number | null;
  /** Why there is no reward (no file, not a number, a link). */
  readonly rewardError: string | null;
  /** The tests' output (capped like a command's). */
  readonly output: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly ms: number;
}

/**
 * One episode's root: a fresh copy-on-write root file system of the task's image, prepared by its
 * set-up steps, with one persistent shell for the agent. Calls are sequential.
 */
export interface TerminalSession {
  /** Runs one command in the agent's shell (working directory and variables carry over). */
  run(command: string, timeoutMs: number): Promise<CommandResult>;
  /** Copies a host file or folder into the root at `to` (the oracle's `solution/` at /solution). */
  copyIn(from: string, to: string): Promise<void>;
  /**
   * Ends the agent's part: kills every process it started, installs the tests at /tests afresh and
   * runs `bash /tests/test.sh` with the base image's tools. Call once, last.
   */
  verify(): Promise<VerifierResult>;
  /** Bytes used on the episode's disk (the root's writable layer). */
  diskBytes(): Promise<number>;
  /** Kills every process and frees the root. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens terminal sessions: builds (once, then cached) the task's base root and prepares a fresh
 * copy of it per session. A task whose root cannot be prepared (a set-up command failed, an image
 * that cannot be built) gives a failure outcome, never an exception.
 *
 * @throws SandboxUnavailableError from `open` when the machine cannot run terminal jails at all
 */
export interface TerminalRuntime {
  open(task: TerminalTask): Promise<SandboxOutcome<TerminalSession>>;
  /** Closes every open session. */
  close(): Promise<void>;
}
