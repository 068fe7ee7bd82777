import { spawn, type ChildProcess } from "node:child_process";
import type { Duplex } from "node:stream";
import type { SandboxFailureKind } from "../../spec/index.js";
import type { JailCgroup } from "./cgroup.js";
import { encodeEnvelope, EnvelopeDecoder } from "./frames.js";
import { Lane, type LaneEvent } from "./lane.js";
import type { ChildFailure, ZygoteCommand } from "./zygote-process.js";


/** What the zygote said about one child. */
export type ChildMessage =
  | { readonly kind: "reply"; readonly payload: Buffer }
  | { readonly kind: "failed"; readonly failure: ChildFailure };

const FAILURE_KINDS = new Set<string>(["timeout", "cpu_limit", "memory_limit", "crash", "protocol_violation", "output_limit", "forbidden"]);

/** Sizes of a {@link Jail}'s channels. */
export interface JailChannels {
  /** Largest envelope the zygote may send, bytes (reply cap plus slack). */
  readonly maxEnvelopeBytes: number;
  /** Largest reply an episode may write on its lane, bytes. @default maxEnvelopeBytes */
  readonly maxFrameBytes?: number;
  /** Direct lanes between the supervisor and episode processes (see {@link Lane}). @default 0 */
  readonly lanes?: number;
  /** The jail's cgroup: the jail starts inside it, and it is removed once the jail has exited. @default none */
  readonly cgroup?: JailCgroup;
}

/**
 * One long-lived zygote process (inside a bubblewrap jail or not) and the
 * children it forks. Multiplexes messages by child id; never throws on what
 * children do. When the zygote itself dies, every listener gets a `crash`.
 *
 * Episodes that find a free {@link Lane} at start answer the supervisor on it
 * directly; the others (and probes, self-tests) are served through the zygote.
 * Failures, ends and stdout/stderr always go through the zygote.
 */
export class Jail {
  private readonly process: ChildProcess;
  private readonly decoder: EnvelopeDecoder;
  private readonly lanes: Lane[];
  private readonly episodeLanes = new Map<number, Lane>();
  private readonly listeners = new Map<number, (message: ChildMessage) => void>();
  private readonly endings = new Map<number, () => void>();
  private stderrTail = "";
  private exitPromise: Promise<void>;
  private readonly cgroup: JailCgroup | undefined;
  private oomKillsSeen = 0;
  /** Episodes started in this jail (for recycling). */
  episodesStarted = 0;
  /** True once the zygote exited or was killed. */
  dead = false;
  /** True when no new episodes should start here. */
  retired = false;

  constructor(command: ZygoteCommand, channels: JailChannels) {
    this.decoder = new EnvelopeDecoder(channels.maxEnvelopeBytes);
    const lanes = Math.max(0, channels.lanes ?? 0);
    const laned = lanes > 0 ? { ...command, args: [...command.args, "--lanes", String(lanes)] } : command;
    this.cgroup = channels.cgroup;
    const started = this.cgroup ? this.cgroup.wrap(laned) : laned;
    const stdio: "pipe"[] = Array.from({ length: 3 + lanes }, () => "pipe");
    this.process = spawn(started.command, [...started.args], { stdio, detached: true, env: { ...started.env } });
    this.lanes = Array.from(
      { length: lanes },
      (_, index) => new Lane(index, this.process.stdio[3 + index] as Duplex, channels.maxFrameBytes ?? channels.maxEnvelopeBytes, (id, event) => this.onLane(id, event)),
    );
    this.process.stdout?.on("data", (chunk: Buffer) => this.onData(chunk));
    this.process.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
    });
    this.process.stdin?.on("error", () => undefined);
    const exited = new Promise<void>((resolve) => {
      this.process.on("exit", () => resolve());
      this.process.on("error", () => resolve());
    });
    const cgroup = this.cgroup;
    this.exitPromise = cgroup ? exited.then(async () => void (await cgroup.removeWhenEmpty())) : exited;
    this.process.on("exit", (code, signal) => this.onDeath(`sandbox jail exited (${signal ?? `code ${code}`})`));
    this.process.on("error", (error) => this.onDeath(`sandbox jail failed to start: ${error.message}`));
  }

  /** Process id of the jail's outermost process (bwrap or the zygote). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Directories of the jail's cgroup (empty without one). */
  get cgroupDirectories(): readonly string[] {
    return this.cgroup?.directories ?? [];
  }

  /** Number of children with a listener (live probes and episodes). */
  get liveChildren(): number {
    return this.listeners.size;
  }

  /** Registers the handler of child `id`'s messages (replies and failures). */
  listen(id: number, handler: (message: ChildMessage) => void): void {
    this.listeners.set(id, handler);
    if (this.dead) handler({ kind: "failed", failure: this.deathFailure() });
  }

  /** Sends one envelope; a dead jail ignores it (listeners were already told). */
  send(id: number, type: "L" | "S" | "R" | "K" | "U" | "T", payload: Buffer | string = ""): void {
    if (this.dead) return;
    this.process.stdin?.write(encodeEnvelope(id, type, payload));
  }

  /**
   * Starts episode `id` (the zygote forks it or wakes a spare) with a free lane
   * when there is one.
   * @param request the start request: `{ program, seed, limits }`
   */
  start(id: number, request: Readonly<Record<string, unknown>>): void {
    const lane = this.dead ? undefined : this.lanes.find((candidate) => candidate.free);
    if (lane === undefined) {
      this.send(id, "S", JSON.stringify(request));
      return;
    }
    this.episodeLanes.set(id, lane);
    const nonce = lane.take(id);
    this.send(id, "S", JSON.stringify({ ...request, lane: lane.index, nonce }));
  }

  /** Sends one request (raw JSON) to episode `id`: on its lane, or through the zygote. */
  request(id: number, payload: Buffer): void {
    if (this.dead) return;
    const lane = this.episodeLanes.get(id);
    if (lane?.heldBy(id)) lane.request(payload);
    else this.send(id, "R", payload);
  }

  /**
   * Ends child `id`: the zygote kills it, reaps it and removes its directory.
   * Resolves when the zygote confirms, when the jail dies, or after `graceMs`
   * (then the jail is killed, since a zygote that does not answer is broken).
   */
  end(id: number, graceMs = 5000): Promise<void> {
    this.listeners.delete(id);
    if (this.dead) return Promise.resolve();
    const token = this.releaseLane(id);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.endings.delete(id);
        this.kill();
        resolve();
      }, graceMs);
      this.endings.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      this.send(id, "K", token);
    });
  }

  /** Starts draining the lane episode `id` holds; returns the K payload that tells the zygote the token. */
  private releaseLane(id: number): string {
    const lane = this.episodeLanes.get(id);
    this.episodeLanes.delete(id);
    if (lane === undefined || !lane.heldBy(id)) return "";
    return JSON.stringify({ lane: lane.index, token: lane.release() });
  }

  /** A reply or a violation on episode `id`'s lane; a violation ends the episode at once. */
  private onLane(id: number, event: LaneEvent): void {
    const listener = this.listeners.get(id);
    if (event.kind === "reply") {
      listener?.({ kind: "reply", payload: event.payload });
      return;
    }
    listener?.({ kind: "failed", failure: event.failure });
    this.send(id, "K", this.releaseLane(id));
  }

  /**
   * Closes the jail: the zygote sees its input end, kills and reaps every child
   * and exits; after `graceMs` the whole process group is killed regardless.
   */
  async close(graceMs = 2000): Promise<void> {
    this.retired = true;
    if (!this.dead) {
      this.process.stdin?.end();
      const timer = setTimeout(() => this.kill(), graceMs);
      await this.exitPromise;
      clearTimeout(timer);
    }
    this.kill();
    await this.exitPromise;
  }

  /** Kills the jail's process group without waiting. */
  kill(): void {
    this.retired = true;
    if (this.dead || this.process.pid === undefined) return;
    try {
      process.kill(-this.process.pid, "SIGKILL");
    } catch {
      this.process.kill("SIGKILL");
    }
  }

  private onData(chunk: Buffer): void {
    for (const envelope of this.decoder.push(chunk)) {
      if (envelope === null) {
        this.kill();
        return;
      }
      if (envelope.type === "R") {
        this.listeners.get(envelope.id)?.({ kind: "reply", payload: envelope.payload });
      } else if (envelope.type === "V") {
        this.onEvent(envelope.id, envelope.payload);
      }
    }
  }

  private onEvent(id: number, payload: Buffer): void {
    let event: { event?: unknown; kind?: unknown; message?: unknown; detail?: unknown };
    try {
      event = JSON.parse(payload.toString("utf8")) as typeof event;
    } catch {
      return;
    }
    if (event.event === "ended") {
      const resolve = this.endings.get(id);
      this.endings.delete(id);
      resolve?.();
    } else if (event.event === "failed") {
      let kind = typeof event.kind === "string" && FAILURE_KINDS.has(event.kind) ? (event.kind as SandboxFailureKind) : "crash";
      let message = typeof event.message === "string" ? event.message : "environment failed";
      if (kind === "crash" && message.includes("SIGKILL") && this.cgroup) {
        const oomKills = this.cgroup.oomKills();
        if (oomKills > this.oomKillsSeen) {
          kind = "memory_limit";
          message = `the jail's cgroup memory limit of ${this.cgroup.memoryBytes} bytes was reached (the kernel killed the episode)`;
        }
        this.oomKillsSeen = oomKills;
      }
      const detail = typeof event.detail === "string" && event.detail !== "" ? event.detail : undefined;
      this.listeners.get(id)?.({ kind: "failed", failure: detail === undefined ? { kind, message } : { kind, message, detail } });
    }
  }

  private deathFailure(): ChildFailure {
    const message = "the sandbox jail died";
    return this.stderrTail ? { kind: "crash", message, detail: this.stderrTail } : { kind: "crash", message };
  }

  private onDeath(message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.retired = true;
    const failure: ChildFailure = this.stderrTail ? { kind: "crash", message, detail: this.stderrTail } : { kind: "crash", message };
    for (const handler of [...this.listeners.values()]) handler({ kind: "failed", failure });
    for (const resolve of [...this.endings.values()]) resolve();
    this.endings.clear();
  }
}
