import { ServeRequestError } from "../spec/index.js";
import type { ServedSession } from "./served-session.js";

/** How a session reached the server: OpenEnv's WebSocket or HTTP episodes, an MCP session (`/mcp`), or a sandbox-worker connection (`/v1/sandbox`). */
export type SessionTransport = "websocket" | "http" | "mcp" | "sandbox";

/** What the registry needs of any session it holds. */
export interface HeldSession {
  readonly id: string;
  /** Requests queued or running. */
  readonly pendingRequests: number;
  /** Nothing runs: no request pending and no episode under way. */
  readonly idle: boolean;
  /** Ends the session and its episode process. Idempotent. */
  close(): Promise<void>;
}

/** Options of a {@link SessionRegistry}. */
export interface SessionRegistryOptions {
  /** Sessions held at once. */
  readonly capacity: number;
  /** A session without activity for this long is expired, milliseconds. */
  readonly idleTimeoutMs: number;
  /** Milliseconds since some epoch (injected for tests). */
  readonly now: () => number;
  /** Makes the session for a new id. */
  readonly create: (id: string) => ServedSession;
}

interface Entry {
  readonly session: HeldSession;
  /** The OpenEnv session, or null for a sandbox-worker session. */
  readonly served: ServedSession | null;
  readonly transport: SessionTransport;
  lastActivityAt: number;
  /** Called once when the registry expires the session (the transport tells its client). */
  readonly onExpire: (session: HeldSession) => void;
}

/**
 * The server's live sessions (OpenEnv sessions and sandbox-worker sessions alike): a fixed capacity (one more is refused with `capacity_reached`;
 * for HTTP episodes an idle, finished HTTP session is evicted first), idle expiry, and the drain
 * that refuses new sessions at shutdown.
 */
export class SessionRegistry {
  private readonly entries = new Map<string, Entry>();
  private draining = false;

  constructor(private readonly options: SessionRegistryOptions) {}

  /** Sessions held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Sessions held now, by transport. */
  counts(): Record<SessionTransport, number> {
    const counts = { websocket: 0, http: 0, mcp: 0, sandbox: 0 };
    for (const entry of this.entries.values()) counts[entry.transport] += 1;
    return counts;
  }

  /** True once {@link startDrain} was called. */
  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Opens an OpenEnv session under `id`.
   * @param onExpire told when the session is expired for idleness (after it is closed)
   * @throws ServeRequestError `draining` during shutdown, `capacity_reached` when every slot is held, `invalid_request` when `id` is taken
   */
  open(id: string, transport: "websocket" | "http" | "mcp", onExpire: (session: HeldSession) => void = () => undefined): ServedSession {
    this.claimSlot(id);
    const session = this.options.create(id);
    this.entries.set(id, { session, served: session, transport, lastActivityAt: this.options.now(), onExpire });
    return session;
  }

  /**
   * Holds a sandbox-worker session made by `create` under `id`, in the same slots as OpenEnv sessions.
   * @throws ServeRequestError as {@link open}
   */
  hold<S extends HeldSession>(id: string, create: () => S, onExpire: (session: HeldSession) => void = () => undefined): S {
    this.claimSlot(id);
    const session = create();
    this.entries.set(id, { session, served: null, transport: "sandbox", lastActivityAt: this.options.now(), onExpire });
    return session;
  }

  /** Refuses a new session when draining, full (after evicting a finished HTTP session) or `id` is taken. */
  private claimSlot(id: string): void {
    if (this.draining) throw new ServeRequestError("draining", "the server is shutting down and opens no new session");
    if (this.entries.has(id)) throw new ServeRequestError("invalid_request", `session ${id} exists already`);
    if (this.entries.size >= this.options.capacity && !this.evictFinishedHttpSession()) {
      throw new ServeRequestError("capacity_reached", `server at capacity: ${this.entries.size}/${this.options.capacity} sessions active`);
    }
  }

  /** The OpenEnv session with this id, marking it active; undefined when there is none (or `id` is a sandbox-worker session). */
  touch(id: string): ServedSession | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    entry.lastActivityAt = this.options.now();
    return entry.served ?? undefined;
  }

  /** Closes and forgets a session (idempotent). */
  async close(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    await entry.session.close();
  }

  /**
   * Closes every session idle for longer than the idle timeout (no request running and none
   * for `idleTimeoutMs`) and tells its transport. Returns how many were expired.
   */
  async expireIdle(): Promise<number> {
    const cutoff = this.options.now() - this.options.idleTimeoutMs;
    const stale = [...this.entries.entries()].filter(([, entry]) => entry.lastActivityAt < cutoff && entry.session.pendingRequests === 0);
    await Promise.all(
      stale.map(async ([id, entry]) => {
        this.entries.delete(id);
        await entry.session.close();
        entry.onExpire(entry.session);
      }),
    );
    return stale.length;
  }

  /** Refuses new sessions from now on (existing ones go on). */
  startDrain(): void {
    this.draining = true;
  }

  /** Whether every session is idle (no request running, no episode under way). */
  allIdle(): boolean {
    return [...this.entries.values()].every((entry) => entry.session.idle);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map((entry) => entry.session.close()));
  }

  /** Frees the slot of the least recently active HTTP session whose episode is over. */
  private evictFinishedHttpSession(): boolean {
    let oldest: [string, Entry] | null = null;
    for (const item of this.entries.entries()) {
      const [, entry] = item;
      if (entry.transport !== "http" || entry.served?.finished !== true) continue;
      if (oldest === null || entry.lastActivityAt < oldest[1].lastActivityAt) oldest = item;
    }
    if (oldest === null) return false;
    this.entries.delete(oldest[0]);
    void oldest[1].session.close();
    return true;
  }
}
