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
