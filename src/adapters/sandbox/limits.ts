/**
 * Resource limits of sandboxed episodes. Limits in the Python child are
 * rlimits; the rest are enforced by the supervisor (Node) or the zygote.
 */
export interface SandboxLimits {
  /** Wall-clock limit of one call (load, reset, step, oracle) in milliseconds, held by Node. @default 10000 */
  readonly callTimeoutMs: number;
  /** Address-space and data rlimit of an episode process in bytes. @default 1 GiB */
  readonly memoryBytes: number;
  /** CPU-time rlimit of one episode (and of a program's load) in seconds; hard = soft + 1. @default 30 */
  readonly cpuSeconds: number;
  /** Largest file an episode may write, bytes (RLIMIT_FSIZE). @default 16 MiB */
  readonly fileBytes: number;
  /** Largest reply frame accepted from an episode, bytes; larger is `output_limit`. @default 4 MiB */
  readonly maxFrameBytes: number;
  /** Largest stdout + stderr volume of one episode before it is killed with `output_limit`, bytes. @default 4 MiB */
  readonly maxStderrBytes: number;
  /** Observations longer than this many characters are truncated (not a failure). @default 8000 */
  readonly maxObservationChars: number;
  /** Observations longer than this many characters are an `output_limit` failure. @default 1 MiB characters */
  readonly maxObservationBytes: number;
  /** Deepest nesting of a step's info dict; deeper is a `protocol_violation`. @default 16 */
  readonly maxInfoDepth: number;
  /** File writes (creations, opens for writing, mkdir, remove) allowed in one episode; more is `forbidden`. @default 256 */
  readonly maxFiles: number;
  /** Largest program source (env.py + oracle.py) accepted by `open`, bytes. @default 1 MiB */
  readonly maxSourceBytes: number;
  /** Largest request (an action or an oracle observation) sent to an episode, bytes. @default 1 MiB */
  readonly maxRequestBytes: number;
  /** Size of the jail's `/tmp` tmpfs in bytes (bwrap only). @default 64 MiB */
  readonly tmpBytes: number;
  /** Refuse to run episodes when the seccomp filter cannot be loaded. @default false */
  readonly requireSeccomp: boolean;
  /** Memory of a whole jail (zygote, spares, episodes, its `/tmp`) in its cgroup, bytes; applies where cgroups can be created. @default 4 GiB */
  readonly jailMemoryBytes: number;
  /** Processes and threads in a jail at once, in its cgroup. @default 256 */
  readonly jailPids: number;
  /** CPU of a jail in cores (a CFS quota in its cgroup); 0 = no CPU limit. @default 0 */
  readonly jailCpus: number;
}

/** Default {@link SandboxLimits}. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  callTimeoutMs: 10_000,
  memoryBytes: 1024 * 1024 * 1024,
  cpuSeconds: 30,
  fileBytes: 16 * 1024 * 1024,
  maxFrameBytes: 4 * 1024 * 1024,
  maxStderrBytes: 4 * 1024 * 1024,
  maxObservationChars: 8000,
  maxObservationBytes: 1024 * 1024,
  maxInfoDepth: 16,
  maxFiles: 256,
  maxSourceBytes: 1024 * 1024,
  maxRequestBytes: 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
  requireSeccomp: false,
  jailMemoryBytes: 4 * 1024 * 1024 * 1024,
  jailPids: 256,
  jailCpus: 0,
};

/** The limits the zygote reads from every load/start request (its own field names). */
export function zygoteLimits(limits: SandboxLimits): Record<string, number | boolean> {
  return {
    cpuSeconds: limits.cpuSeconds,
    memoryBytes: limits.memoryBytes,
    fileBytes: limits.fileBytes,
    maxFrameBytes: limits.maxFrameBytes,
    maxOutputBytes: limits.maxStderrBytes,
    maxObservationBytes: limits.maxObservationBytes,
    maxInfoDepth: limits.maxInfoDepth,
    maxFiles: limits.maxFiles,
    requireSeccomp: limits.requireSeccomp,
  };
}
