/**
 * Sandbox backends for environment programs.
 * @module
 */
export { BwrapSandbox, bwrapJailArgs, type BwrapSandboxOptions } from "./bwrap-sandbox.js";
export { ProcessSandbox, PROCESS_SANDBOX_WARNING, type ProcessSandboxOptions } from "./process-sandbox.js";
export { ZygoteSandbox, ZYGOTE_PATH, type ZygoteLauncher, type ZygoteSandboxOptions } from "./zygote-sandbox.js";
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
export { openSandbox, type SandboxSettings } from "./open-sandbox.js";
export { RemoteSandbox, type RemoteSandboxOptions } from "./remote-sandbox.js";
export { RemoteSession, type RemoteConnectionSettings } from "./remote-session.js";
export { ServerPool, type PooledServer } from "./server-pool.js";
export { SANDBOX_WORKER_PATH, StepResultSchema, WORKER_OUTCOME_SCHEMAS, WORKER_REQUEST_TYPES, WorkerRequestSchema, type WorkerCall, type WorkerRequest } from "./remote-wire.js";
export { cgroupStatus, diagnoseSandbox, formatDiagnosis, type ProtectionStatus } from "./doctor.js";
export { benchmarkSandbox, formatSandboxBench, percentiles, type BenchEnvironment, type Percentiles, type SandboxBenchOptions, type SandboxBenchResult, type Throughput } from "./bench.js";
export type { SandboxSelfTest } from "./zygote-sandbox.js";
