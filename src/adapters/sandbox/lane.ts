import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import type { ChildFailure } from "./zygote-process.js";

/** What a lane reports about the episode holding it. */
export type LaneEvent =
  | { readonly kind: "reply"; readonly payload: Buffer }
  | { readonly kind: "violation"; readonly failure: ChildFailure };

/** Bytes of a lane frame header: u32 length (counting the number and the JSON), u32 number. */
const FRAME_HEADER_BYTES = 8;
/** Bytes of the token that closes an episode's traffic on a lane. */
const TOKEN_BYTES = 16;

/**
 * One direct channel between the supervisor and an episode process: a socket
 * the supervisor passes to the zygote at spawn (fd 3 + index) and the zygote
 * hands to one episode at a time, so that steps cross two process hops
 * (Node → episode → Node) instead of four (through the zygote both ways).
 *
 * Frames both ways are `u32 length | u32 number | JSON` (length counts the
 * number and the JSON). Every request carries a fresh random number that its
 * reply must repeat; a reply with another number, one nobody asked for, or one
 * longer than `maxFrameBytes` is reported as a violation (the episode is then
 * ended). Everything an environment writes is untrusted: the lane never parses
 * the JSON, it only frames and checks it.
 *
 * Ending an episode drains the lane: the supervisor gives the zygote a random
 * 16-byte token, the zygote writes it to the lane once the episode is reaped
 * (after dropping unread requests), and every byte before the token is
 * discarded. A partial or forged frame the old episode left behind can thus
 * never reach the next one.
 */
export class Lane {
  /** Id of the episode holding the lane, or -1. */
  episodeId = -1;
  private state: "free" | "busy" | "draining" = "free";
  private nonce = 0;
  private awaiting = false;
  private broken = false;
  private buffer: Buffer = Buffer.alloc(0);
  private token: Buffer | null = null;

  /**
   * @param index the lane's number in its jail (its descriptor in the zygote is 3 + index)
   * @param socket the supervisor's end of the lane
   * @param maxFrameBytes largest reply JSON accepted, bytes; larger is an `output_limit` violation
   * @param onEvent receives replies and violations of the holding episode
   */
  constructor(
    readonly index: number,
    private readonly socket: Duplex,
    private readonly maxFrameBytes: number,
    private readonly onEvent: (episodeId: number, event: LaneEvent) => void,
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", () => undefined);
  }

  /** True when no episode holds the lane and the previous one's traffic is drained. */
  get free(): boolean {
    return this.state === "free";
  }

  /** True while `episodeId` holds the lane (not yet ended). */
  heldBy(episodeId: number): boolean {
    return this.state === "busy" && this.episodeId === episodeId;
  }

  /**
   * Gives the lane to an episode that is about to start; returns the number its
   * first (reset) reply must repeat, which the zygote passes on with the start request.
   */
  take(episodeId: number): number {
    this.state = "busy";
    this.episodeId = episodeId;
    this.broken = false;
    this.buffer = Buffer.alloc(0);
    this.nonce = freshNonce();
    this.awaiting = true;
    return this.nonce;
  }

  /** Writes one request (raw JSON bytes) to the holding episode. */
  request(payload: Buffer): void {
    this.nonce = freshNonce();
    this.awaiting = true;
    const header = Buffer.alloc(FRAME_HEADER_BYTES);
    header.writeUInt32BE(payload.length + 4, 0);
    header.writeUInt32BE(this.nonce, 4);
    this.socket.write(Buffer.concat([header, payload]));
  }

  /**
   * Ends the holding episode's use of the lane: from now on every byte is
   * discarded until the returned token (hex) comes back from the zygote.
   */
  release(): string {
    this.state = "draining";
    this.token = randomBytes(TOKEN_BYTES);
    this.buffer = Buffer.alloc(0);
    return this.token.toString("hex");
  }

  private onData(chunk: Buffer): void {
    if (this.state === "free") return; // nobody holds the lane: nothing can be owed to anyone
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (this.state === "draining") {
      const at = this.buffer.indexOf(this.token as Buffer);
      if (at >= 0) {
        this.state = "free";
        this.episodeId = -1;
        this.buffer = Buffer.alloc(0);
      } else {
        this.buffer = this.buffer.subarray(Math.max(0, this.buffer.length - TOKEN_BYTES + 1));
      }
      return;
    }
    if (this.broken) {
      this.buffer = Buffer.alloc(0);
      return;
    }
    while (this.buffer.length >= FRAME_HEADER_BYTES) {
      const length = this.buffer.readUInt32BE(0);
      const nonce = this.buffer.readUInt32BE(4);
      if (length < 4 || length > this.maxFrameBytes + 4) {
        this.violate({ kind: "output_limit", message: `reply of ${length} bytes exceeds ${this.maxFrameBytes}` });
        return;
      }
      if (!this.awaiting || nonce !== this.nonce) {
        this.violate({ kind: "protocol_violation", message: "the environment wrote a frame nobody asked for" });
        return;
      }
      if (this.buffer.length < 4 + length) return;
      const payload = this.buffer.subarray(FRAME_HEADER_BYTES, 4 + length);
      this.buffer = this.buffer.subarray(4 + length);
      this.awaiting = false;
      this.onEvent(this.episodeId, { kind: "reply", payload });
    }
    if (this.buffer.length > 0 && !this.awaiting) {
      this.violate({ kind: "protocol_violation", message: "the environment wrote a frame nobody asked for" });
    }
  }

  private violate(failure: ChildFailure): void {
    this.broken = true;
    this.buffer = Buffer.alloc(0);
    this.onEvent(this.episodeId, { kind: "violation", failure });
  }
}

/** A random non-zero 32-bit request number. */
function freshNonce(): number {
  return randomBytes(4).readUInt32BE(0) || 1;
}
