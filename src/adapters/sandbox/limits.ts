/**
 * Resource limits of one sandbox session.
 */
export interface SandboxLimits {
  /** Wall-clock limit of one call (load, reset, step, oracle) in milliseconds. @default 10000 */
  readonly callTimeoutMs: number;
  /** Address-space rlimit of the runner in bytes. @default 1 GiB */
  readonly memoryBytes: number;
  /** CPU-time rlimit of the whole session in seconds (hard = soft + 1). @default 30 */
  readonly cpuSeconds: number;
  /** Largest file the program may write, bytes. @default 16 MiB */
  readonly fileBytes: number;
  /** Largest reply frame accepted from the runner, bytes. @default 4 MiB */
  readonly maxFrameBytes: number;
  /** Largest stderr volume accepted before the session is killed, bytes. @default 4 MiB */
  readonly maxStderrBytes: number;
  /** Observations longer than this many characters are truncated. @default 8000 */
  readonly maxObservationChars: number;
  /** Size of the jail's `/tmp` tmpfs in bytes. @default 64 MiB */
  readonly tmpBytes: number;
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
  tmpBytes: 64 * 1024 * 1024,
};
