import { z } from "zod";

/** The `sandbox` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const SandboxSchema = z
  .object({
    /**
     * Sandbox backend: `bwrap` (bubblewrap jails), `process` (no namespaces; needs `trustedCode`), or
     * `remote` (every session on one of the `envforge serve` servers in `remote.urls`, in their jails with
     * their own sandbox limits; the limits below then apply on those servers, not here). @default "bwrap"
     */
    backend: z.enum(["bwrap", "process", "remote"]).default("bwrap"),
    /** States that environment code is trusted; required by the `process` backend. @default false */
    trustedCode: z.boolean().default(false),
    /** Wall-clock limit per environment call, milliseconds. @default 10000 */
    callTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** Address-space limit per episode process, MiB. @default 1024 */
    memoryMb: z.number().int().min(64).max(65_536).default(1024),
    /** CPU-time limit per episode, seconds (hard limit one second more). @default 30 */
    cpuSeconds: z.number().int().min(1).max(3600).default(30),
    /** Jails (zygote processes) running episodes in parallel. @default 1 */
    workers: z.number().int().min(1).max(64).default(1),
    /** A jail is replaced by a fresh one after this many episodes. @default 1000 */
    recycleAfterEpisodes: z.number().int().min(1).default(1000),
    /** Memory of a whole jail (zygote, spares, live episodes, its /tmp) in its cgroup, MiB; used where cgroups can be created. @default 4096 */
    jailMemoryMb: z.number().int().min(64).max(1_048_576).default(4096),
    /** Processes and threads in one jail at once, in its cgroup. @default 256 */
    jailPids: z.number().int().min(16).max(65_536).default(256),
    /** CPU of one jail in cores (a CFS quota in its cgroup); 0 = no CPU limit. @default 0 */
    jailCpus: z.number().min(0).max(1024).default(0),
    /** The servers of the `remote` backend (ignored by the others). */
    remote: z
      .object({
        /**
         * Roots of `envforge serve` servers (`http://host:port` or `https://…`); sessions go to the one with
         * the fewest of this process's sessions in flight. Required (at least one) when `backend` is `remote`. @default []
         */
        urls: z.array(z.string().regex(/^https?:\/\/[^\s/?#]+\/?$/, "a server root such as http://10.0.0.5:8000")).default([]),
        /** Environment variable holding the bearer token sent to every server (unset or empty = none). @default "ENVFORGE_SERVE_TOKEN" */
        tokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("ENVFORGE_SERVE_TOKEN"),
        /** Limit of one connect and WebSocket handshake to a server, milliseconds. @default 5000 */
        connectTimeoutMs: z.number().int().min(100).max(600_000).default(5000),
        /** Ping interval of each session's connection; a server that misses a whole interval is taken for dead, milliseconds. @default 5000 */
        heartbeatMs: z.number().int().min(100).max(600_000).default(5000),
        /** A server that failed (refused, unreachable, dropped a session) is skipped for this long, milliseconds. @default 30000 */
        cooldownMs: z.number().int().min(0).max(86_400_000).default(30_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((sandbox) => sandbox.backend !== "remote" || sandbox.remote.urls.length > 0, {
    message: "the remote backend needs at least one server URL in sandbox.remote.urls",
    path: ["remote", "urls"],
  })
  .prefault({});
