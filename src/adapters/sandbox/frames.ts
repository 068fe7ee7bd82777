/**
 * Length-prefixed JSON frames: a 4-byte big-endian length, then that many bytes
 * of UTF-8 JSON. The sandbox supervisor and the Python runner speak only this.
 */

/** Encodes one frame. */
export function encodeFrame(message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(payload.length, 0);
  return Buffer.concat([header, payload]);
}

/** What {@link FrameDecoder.push} found. */
export type DecodeEvent =
  | { readonly kind: "frame"; readonly value: unknown }
  | { readonly kind: "oversize"; readonly length: number }
  | { readonly kind: "malformed"; readonly message: string };

/**
 * Incremental decoder with a byte cap per frame. After an `oversize` or
 * `malformed` event the stream is unusable and further bytes are ignored.
 */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  private broken = false;

  /** @param maxFrameBytes largest accepted payload in bytes */
  constructor(private readonly maxFrameBytes: number) {}

  /** Appends bytes and returns every complete frame (or the first error). */
  push(chunk: Buffer): DecodeEvent[] {
    if (this.broken) return [];
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
    const events: DecodeEvent[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (length > this.maxFrameBytes) {
        this.broken = true;
        events.push({ kind: "oversize", length });
        return events;
      }
      if (this.buffer.length < 4 + length) break;
      const payload = this.buffer.subarray(4, 4 + length).toString("utf8");
      this.buffer = this.buffer.subarray(4 + length);
      try {
        events.push({ kind: "frame", value: JSON.parse(payload) });
      } catch (error) {
        this.broken = true;
        events.push({ kind: "malformed", message: `frame is not JSON: ${(error as Error).message}` });
        return events;
      }
    }
    return events;
  }
}

/** Envelope header bytes: u32 length (counting id, type and payload), u32 id, u8 type. */
const ENVELOPE_HEADER_BYTES = 9;

/**
 * Encodes one envelope of the zygote channel: a 4-byte big-endian length
 * (id, type and payload together), a 4-byte big-endian id, a 1-byte type
 * (an ASCII letter) and the raw payload. See `zygote.py` for the types.
 */
export function encodeEnvelope(id: number, type: string, payload: Buffer | string): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const header = Buffer.alloc(ENVELOPE_HEADER_BYTES);
  header.writeUInt32BE(body.length + 5, 0);
  header.writeUInt32BE(id, 4);
  header.writeUInt8(type.charCodeAt(0), 8);
  return Buffer.concat([header, body]);
}

/** One decoded envelope. */
export interface Envelope {
  readonly id: number;
  /** ASCII letter, e.g. `R` (reply frame) or `V` (event). */
  readonly type: string;
  readonly payload: Buffer;
}

/**
 * Incremental decoder of the zygote channel. The zygote is supervisor code
 * (it forwards environment replies without parsing them), so the envelope
 * layer trusts lengths up to `maxEnvelopeBytes` and reports anything larger
 * as `null` (the channel is then unusable).
 */
export class EnvelopeDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  private broken = false;

  /** @param maxEnvelopeBytes largest accepted envelope body in bytes */
  constructor(private readonly maxEnvelopeBytes: number) {}

  /** Appends bytes and returns the complete envelopes; `null` marks a broken channel. */
  push(chunk: Buffer): (Envelope | null)[] {
    if (this.broken) return [];
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
    const envelopes: (Envelope | null)[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (length < 5 || length > this.maxEnvelopeBytes) {
        this.broken = true;
        envelopes.push(null);
        return envelopes;
      }
      if (this.buffer.length < 4 + length) break;
      envelopes.push({
        id: this.buffer.readUInt32BE(4),
        type: String.fromCharCode(this.buffer.readUInt8(8)),
        payload: this.buffer.subarray(ENVELOPE_HEADER_BYTES, 4 + length),
      });
      this.buffer = this.buffer.subarray(4 + length);
    }
    return envelopes;
  }
}
