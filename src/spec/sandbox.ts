import type { TerminalTask } from "./terminal.js";
import type { BfclEntry } from "./bfcl.js";
import type { OpenEnvTask } from "./openenv.js";
import type { EnvAction } from "./tool-call.js";

/**
 * How a sandboxed call ended. `ok` carries a value; every other kind is a
 * typed failure of the untrusted program, never an exception.
 */
export type SandboxOutcome<T> =
  | { readonly kind: "ok"; readonly value: T }
  | { readonly kind: SandboxFailureKind; readonly message: string; readonly detail?: string };

/**
 * Failure kinds of a sandboxed call.
 * - `timeout`: wall clock exceeded; `cpu_limit` / `memory_limit`: rlimits hit;
 * - `crash`: the program raised or died (detail holds the traceback);
 * - `protocol_violation`: malformed frames or values of the wrong type (a reward
 *   that is not a finite float, e.g. NaN or an int such as `10**400` beyond the float range);
 * - `reward_out_of_range`: a step reward outside the program's declared
 *   {@link EnvProgram.rewardRange} (checked only when the range is given);
 * - `output_limit`: a frame or stream exceeded its byte cap;
 * - `forbidden`: a blocked operation was attempted.
 */
export type SandboxFailureKind =
  | "timeout"
  | "cpu_limit"
  | "memory_limit"
  | "crash"
  | "protocol_violation"
  | "reward_out_of_range"
  | "output_limit"
  | "forbidden";

/** The result of `step(action)`. */
export interface StepResult {
  readonly observation: string;
  /** Finite step reward (not yet clipped). */
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: Readonly<Record<string, unknown>>;
}

/** The result of {@link EnvSession.runActions}. */
export interface ActionRun {
  /** What `reset` returned. */
  readonly initialObservation: string;
  /** One result per action played (fewer than the actions when the episode ended early). */
  readonly steps: readonly StepResult[];
}

/** The program sources a session loads. */
export interface EnvProgram {
  /** `env.py` source. */
  readonly envSource: string;
  /** `oracle.py` source, or null when the oracle is not needed. */
  readonly oracleSource: string | null;
  /**
   * The manifest's declared reward range `[low, high]`. When given, a step
   * reward outside it ends the episode with `reward_out_of_range`. @default undefined (only finiteness is checked)
   */
  readonly rewardRange?: readonly [number, number];
  /**
   * A terminal task and its command budget instead of a Python program: a sandbox wrapped by the
   * terminal runtime (`withTerminalRuntime`) plays it in a jailed root; a plain sandbox refuses it.
   * @default undefined
   */
  readonly terminalEpisode?: { readonly task: TerminalTask; readonly maxTurns: number };
  /**
   * An OpenEnv package played by its environment class in the terminal jail (`withOpenEnvRuntime`);
   * `withOracle`: the session answers `oracleAction` from the package's `oracle.py`. A plain sandbox
   * refuses it.
   */
  readonly openenvEpisode?: { readonly task: OpenEnvTask; readonly withOracle: boolean };
  /** A BFCL v4 multi-turn entry played by BFCL's executor through its bridge (`withBfclRuntime`); a plain sandbox refuses it. */
  readonly bfclEpisode?: { readonly entry: BfclEntry };
}

/**
 * One live instance of an environment program inside a sandbox. Calls are
 * sequential. Every `reset` starts a fresh episode (a new process forked from
 * the loaded program: module globals and files do not leak between episodes).
 * After a non-`ok` outcome the episode is over: `step` and `oracleAction`
 * return the same failure kind without running code until the next `reset`,
 * which starts a clean episode.
 */
export interface EnvSession {
  /**
   * Starts an episode; returns the first observation. With `level` the program's
   * `reset(seed, level)` is called (a levelled family); without, `reset(seed)`.
   */
  reset(seed: number, level?: number): Promise<SandboxOutcome<string>>;
  /** Applies an action: text, or a tool environment's parsed tool call (a dict in the program). */
  step(action: EnvAction): Promise<SandboxOutcome<StepResult>>;
  /**
   * Batch helper for a whole episode: `reset(seed, level)`, then `actions` in order,
   * in one round trip to the environment, stopping early when it terminates or
   * truncates. Equivalent to the same calls one by one (same outcomes, same
   * transcript); any non-`ok` step ends the episode with that outcome.
   * Optional: backends without it are driven call by call.
   */
  runActions?(seed: number, actions: readonly string[], level?: number): Promise<SandboxOutcome<ActionRun>>;
  /** Asks the loaded oracle for its next action given the live environment and `observation` (a tool environment's oracle may answer a tool call). */
  oracleAction(observation: string): Promise<SandboxOutcome<EnvAction>>;
  /** Ends the session and frees its process. Idempotent. */
  close(): Promise<void>;
}

/**
 * Runs untrusted environment programs outside the Node process, isolated from the
 * host. Backends: `bwrap` (bubblewrap jail, default on Linux) and `process`
 * (no namespaces; opt-in for trusted code only).
 *
 * @throws SandboxUnavailableError from `open` when the backend cannot start at all
 */
export interface Sandbox {
  /** Backend name, e.g. `bwrap`. */
  readonly name: string;
  /**
   * Loads `program` into a fresh session. A program that fails to load
   * (syntax error, no environment class) yields a failure outcome.
   */
  open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>>;
  /** Closes every open session. */
  close(): Promise<void>;
}
