import { z } from "zod";

/** The `serve` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const ServeSchema = z
  .object({
    /**
     * Address `envforge serve` binds. Loopback by default; any other address needs a bearer token
     * (`tokenEnv`) or the server refuses to start. CLI `--host`. @default "127.0.0.1"
     */
    host: z.string().min(1).default("127.0.0.1"),
    /** TCP port; 0 = any free port (printed at start). CLI `--port`. @default 8000 */
    port: z.number().int().min(0).max(65_535).default(8000),
    /**
     * Environment variable holding the accepted bearer tokens (comma-separated). Set, every request
     * must carry one (`Authorization: Bearer <token>`, or HTTP Basic with the token as password, which
     * OpenEnv clients send for a `http://user:<token>@host` URL); rate limits count per token. CLI `--token-env`.
     * @default "ENVFORGE_SERVE_TOKEN"
     */
    tokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("ENVFORGE_SERVE_TOKEN"),
    /** Concurrent sessions (WebSocket and HTTP episodes); one more is refused with `CAPACITY_REACHED`. CLI `--capacity`. @default 1024 */
    capacity: z.number().int().min(1).max(100_000).default(1024),
    /** Sessions per jail: the server starts `ceil(capacity / sessionsPerJail)` jails (at least `sandbox.workers`). @default 128 */
    sessionsPerJail: z.number().int().min(1).max(4096).default(128),
    /** A session without a message for this long is closed (`session_expired`), milliseconds. @default 900000 */
    idleTimeoutMs: z.number().int().min(100).max(86_400_000).default(900_000),
    /** WebSocket ping interval, milliseconds; a connection that misses a whole interval's pong is dropped. @default 20000 */
    pingIntervalMs: z.number().int().min(50).max(3_600_000).default(20_000),
    /** Largest action (`message`), bytes of UTF-8; larger is `VALIDATION_ERROR` / HTTP 422 and the session lives on. @default 1048576 */
    maxActionBytes: z.number().int().min(16).max(64 * 1024 * 1024).default(1024 * 1024),
    /** Largest WebSocket frame, bytes; a larger one closes the connection (code 1009). @default 16777216 */
    maxFrameBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(16 * 1024 * 1024),
    /** Largest HTTP request body, bytes; larger is HTTP 413. @default 16777216 */
    maxBodyBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(16 * 1024 * 1024),
    /** Bytes queued for a client that does not read before its connection is dropped. @default 33554432 */
    maxBufferedBytes: z.number().int().min(1024).default(32 * 1024 * 1024),
    /** Time a client has to send its request headers, milliseconds (slow clients are cut off). @default 10000 */
    headersTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** Time a client has to send a whole HTTP request, milliseconds. @default 60000 */
    requestTimeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
    /** Requests (HTTP requests and WebSocket frames) per second per token (per address without tokens). @default 5000 */
    rateLimitPerSecond: z.number().positive().default(5000),
    /** Burst of the rate limit: requests allowed at once after an idle spell. @default 10000 */
    rateLimitBurst: z.number().int().min(1).default(10_000),
    /** Whole episodes per `POST /v1/episodes` or answers per `POST /v1/verify` request. @default 1024 */
    maxEpisodesPerRequest: z.number().int().min(1).max(100_000).default(1024),
    /** Episodes of one batch request played at the same time. @default 32 */
    batchConcurrency: z.number().int().min(1).max(4096).default(32),
    /** After SIGTERM, time running episodes get to finish before every session is closed, milliseconds. @default 30000 */
    drainTimeoutMs: z.number().int().min(0).max(3_600_000).default(30_000),
    /**
     * Serve the sandbox-worker WebSocket `/v1/sandbox`, which runs environment programs sent inline by
     * clients (the `remote` sandbox backend of other envforge processes), in this server's jails with
     * this server's `sandbox` limits, behind the same token, rate and frame limits and session slots.
     * Any client that may connect can then run code in the jails; false refuses the route
     * (`not_supported`). @default true
     */
    acceptPrograms: z.boolean().default(true),
  })
  .strict()
  .prefault({});
