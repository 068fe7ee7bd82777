import { SandboxUnavailableError, type EnvProgram, type EnvSession, type Sandbox, type SandboxOutcome } from "../../spec/index.js";
import { RemoteSession } from "./remote-session.js";
import { ServerPool, type PooledServer } from "./server-pool.js";

/** Options of a {@link RemoteSandbox}. */
export interface RemoteSandboxOptions {
  /** Roots of `envforge serve` servers, e.g. `["http://10.0.0.5:8000", "http://10.0.0.6:8000"]`; at least one. */
  readonly urls: readonly string[];
  /** Bearer token sent to every server. @default none */
  readonly token?: string;
  /** Limit of one connect and its handshake, milliseconds. @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Ping interval; a server that misses a whole interval is taken for dead, milliseconds. @default 5000 */
  readonly heartbeatMs?: number;
  /** A server that failed is skipped for this long, milliseconds. @default 30000 */
  readonly cooldownMs?: number;
  /** Milliseconds clock of the cool-down (injected for tests). @default Date.now */
  readonly now?: () => number;
  /** Told once each time a server is taken for dead or refuses sessions and starts its cool-down (its sessions move to other servers). @default none */
  readonly warn?: (message: string) => void;
}

/**
 * The `remote` sandbox backend: every session runs on one of several `envforge serve` servers
 * (their `/v1/sandbox` route), in that server's jails with that server's sandbox limits. A
 * session opens on the server with the fewest sessions of this process in flight (ties: the
 * first in `urls`); a server that cannot be reached or drops a session is skipped for the
 * cool-down, and the session moves to another server with its episode replayed
 * ({@link RemoteSession}). The program (env and oracle sources) travels in the session's first
 * frame, so any candidate can run remotely, admission probes included.
 *
 * @throws SandboxUnavailableError from the constructor when `urls` is empty
 * @throws RemoteSandboxUnavailableError from `open` (and session calls) when no server is usable
 */
export class RemoteSandbox implements Sandbox {
  readonly name = "remote";
  private readonly pool: ServerPool;
  private readonly sessions = new Set<RemoteSession>();
  private closed = false;

  constructor(private readonly options: RemoteSandboxOptions) {
    if (options.urls.length === 0) throw new SandboxUnavailableError("the remote sandbox backend needs at least one server URL (sandbox.remote.urls)");
    const warn = options.warn;
    this.pool = new ServerPool(options.urls, options.cooldownMs ?? 30_000, options.now ?? Date.now, (url, reason, cooldownMs, usableLeft) =>
      warn?.(
        `sandbox server ${url} failed (${reason}); it is skipped for ${Math.round(cooldownMs / 1000)} s and ${usableLeft > 0 ? "its episodes are replayed on the other servers" : `no other server is usable now: until one answers, episodes fail with "no sandbox server is usable"; check that envforge serve runs at ${url} (sandbox.remote.urls) with the token this run sends`}`,
      ),
    );
  }

  /** The servers with this process's sessions in flight on each. */
  servers(): PooledServer[] {
    return this.pool.list();
  }

  async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
    if (this.closed) return { kind: "protocol_violation", message: "sandbox closed" };
    const session = new RemoteSession(
      program,
      this.pool,
      {
        ...(this.options.token === undefined ? {} : { token: this.options.token }),
        connectTimeoutMs: this.options.connectTimeoutMs ?? 5000,
        heartbeatMs: this.options.heartbeatMs ?? 5000,
      },
      (closed) => this.sessions.delete(closed),
    );
    this.sessions.add(session);
    let loaded: SandboxOutcome<void>;
    try {
      loaded = await session.load();
    } catch (error) {
      await session.close();
      throw error;
    }
    if (loaded.kind !== "ok") {
      await session.close();
      return loaded;
    }
    return { kind: "ok", value: session };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}
