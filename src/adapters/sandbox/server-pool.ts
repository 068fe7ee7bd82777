import type { SandboxServerFailure } from "../../spec/index.js";

/** One sandbox server as the pool sees it. */
export interface PooledServer {
  /** Server root, e.g. `http://10.0.0.5:8000`. */
  readonly url: string;
  /** Sessions of this process open on it now. */
  readonly inFlight: number;
}

interface ServerState {
  readonly url: string;
  inFlight: number;
  /** Milliseconds clock value until which the server is skipped; 0 = usable. */
  downUntil: number;
  /** Why it was last marked down. */
  reason: string;
}

/**
 * The servers of the `remote` sandbox backend: sessions in flight per server (this process's
 * own), and a cool-down for servers that failed. {@link choose} picks the least loaded usable
 * server (ties: the first in the configured order).
 */
export class ServerPool {
  private readonly servers: ServerState[];

  /**
   * @param urls server roots, in order of preference for ties
   * @param cooldownMs milliseconds a failed server is skipped
   * @param now milliseconds clock (injected for tests)
   * @param onDown called when a usable server is marked down (not again while it cools down), e.g. to tell the user;
   * `usableLeft` is how many servers are still usable after it
   */
  constructor(
    urls: readonly string[],
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
    private readonly onDown: (url: string, reason: string, cooldownMs: number, usableLeft: number) => void = () => undefined,
  ) {
    this.servers = urls.map((url) => ({ url, inFlight: 0, downUntil: 0, reason: "" }));
  }

  /** Every server with its load, in configured order. */
  list(): PooledServer[] {
    return this.servers.map(({ url, inFlight }) => ({ url, inFlight }));
  }

  /**
   * The least loaded server not cooling down and not in `exclude`, or null when there is none.
   * @param exclude URLs already tried for this call
   */
  choose(exclude: ReadonlySet<string> = new Set()): PooledServer | null {
    const time = this.now();
    let best: ServerState | null = null;
    for (const server of this.servers) {
      if (exclude.has(server.url) || server.downUntil > time) continue;
      if (best === null || server.inFlight < best.inFlight) best = server;
    }
    return best === null ? null : { url: best.url, inFlight: best.inFlight };
  }

  /** Counts a session opened on `url`. */
  acquire(url: string): void {
    this.state(url).inFlight += 1;
  }

  /** Counts a session on `url` as ended. */
  release(url: string): void {
    const server = this.state(url);
    server.inFlight = Math.max(0, server.inFlight - 1);
  }

  /** Skips `url` for the cool-down, remembering `reason`; tells `onDown` when the server was usable until now. */
  markDown(url: string, reason: string): void {
    const server = this.state(url);
    const time = this.now();
    const wasUsable = server.downUntil <= time;
    server.downUntil = time + this.cooldownMs;
    server.reason = reason;
    if (wasUsable) this.onDown(url, reason, this.cooldownMs, this.servers.filter((candidate) => candidate.downUntil <= time).length);
  }

  /** Why no server is usable: each server with its last failure, or `cooling down` / the reason it was skipped for this call. */
  failures(tried: ReadonlyMap<string, string>): SandboxServerFailure[] {
    const time = this.now();
    return this.servers.map((server) => ({
      url: server.url,
      reason: tried.get(server.url) ?? (server.downUntil > time ? `cooling down for ${Math.ceil((server.downUntil - time) / 1000)} s after: ${server.reason}` : "not tried"),
    }));
  }

  private state(url: string): ServerState {
    const server = this.servers.find((candidate) => candidate.url === url);
    if (server === undefined) throw new Error(`unknown sandbox server ${url}`);
    return server;
  }
}
