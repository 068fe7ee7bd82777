import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, type DecodeEvent } from "./frames.js";

const MAX_FRAME_BYTES = 1024;

/** A frame whose header announces `length` bytes, followed by `payload`. */
function rawFrame(length: number, payload: string): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(length, 0);
  return Buffer.concat([header, Buffer.from(payload, "utf8")]);
}

function pushAll(decoder: FrameDecoder, chunks: readonly Buffer[]): DecodeEvent[] {
  return chunks.flatMap((chunk) => decoder.push(chunk));
}

const messages = [
  { kind: "reset", seed: 7 },
  { kind: "step", observation: "Grüße, 世界 😀", reward: 0.5, terminated: false, info: { path: [1, 2, 3] } },
  "a plain string",
  null,
];

describe("encodeFrame", () => {
  it("writes a 4-byte big-endian length of the UTF-8 JSON payload, then the payload", () => {
    const frame = encodeFrame({ a: 1 });
    expect(frame.readUInt32BE(0)).toBe(7);
    expect(frame.subarray(4).toString("utf8")).toBe('{"a":1}');
  });

  it("counts bytes, not characters, for multi-byte text", () => {
    const message = { text: "é€😀" };
    const frame = encodeFrame(message);
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(JSON.stringify(message), "utf8"));
    expect(frame.readUInt32BE(0)).toBeGreaterThan(JSON.stringify(message).length);
    expect(frame).toHaveLength(4 + frame.readUInt32BE(0));
  });
});

describe("FrameDecoder", () => {
  it("decodes what encodeFrame wrote", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    for (const message of messages) expect(decoder.push(encodeFrame(message))).toEqual([{ kind: "frame", value: message }]);
  });

  it("returns several frames of one chunk in order", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const events = decoder.push(Buffer.concat(messages.map((message) => encodeFrame(message))));
    expect(events).toEqual(messages.map((value) => ({ kind: "frame", value })));
  });

  it("decodes a stream split into two chunks at every byte boundary", () => {
    const stream = Buffer.concat(messages.map((message) => encodeFrame(message)));
    for (let split = 0; split <= stream.length; split += 1) {
      const decoder = new FrameDecoder(MAX_FRAME_BYTES);
      const events = pushAll(decoder, [stream.subarray(0, split), stream.subarray(split)]);
      expect(events, `split at byte ${split}`).toEqual(messages.map((value) => ({ kind: "frame", value })));
    }
  });

  it("decodes a stream delivered one byte at a time, emitting each frame on its last byte", () => {
    const frames = messages.map((message) => encodeFrame(message));
    const stream = Buffer.concat(frames);
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const emittedAt: number[] = [];
    const events: DecodeEvent[] = [];
    for (let offset = 0; offset < stream.length; offset += 1) {
      const found = decoder.push(stream.subarray(offset, offset + 1));
      if (found.length > 0) emittedAt.push(offset);
      events.push(...found);
    }
    expect(events).toEqual(messages.map((value) => ({ kind: "frame", value })));
    let end = -1;
    expect(emittedAt).toEqual(frames.map((frame) => (end += frame.length)));
  });

  it("waits for the rest of a frame and returns nothing meanwhile", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const frame = encodeFrame({ kind: "reset", seed: 1 });
    expect(decoder.push(frame.subarray(0, 2))).toEqual([]);
    expect(decoder.push(frame.subarray(2, 9))).toEqual([]);
    expect(decoder.push(Buffer.alloc(0))).toEqual([]);
    expect(decoder.push(frame.subarray(9))).toEqual([{ kind: "frame", value: { kind: "reset", seed: 1 } }]);
  });

  it("returns complete frames and keeps the partial one that follows", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const second = encodeFrame("second");
    expect(decoder.push(Buffer.concat([encodeFrame("first"), second.subarray(0, 5)]))).toEqual([{ kind: "frame", value: "first" }]);
    expect(decoder.push(second.subarray(5))).toEqual([{ kind: "frame", value: "second" }]);
  });

  it("accepts a payload of exactly the byte cap", () => {
    const payload = JSON.stringify("x".repeat(MAX_FRAME_BYTES - 2));
    expect(Buffer.byteLength(payload)).toBe(MAX_FRAME_BYTES);
    expect(new FrameDecoder(MAX_FRAME_BYTES).push(rawFrame(MAX_FRAME_BYTES, payload))).toEqual([{ kind: "frame", value: "x".repeat(MAX_FRAME_BYTES - 2) }]);
  });

  it("reports an oversize length header as soon as the header is complete, before any payload", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const header = rawFrame(MAX_FRAME_BYTES + 1, "");
    expect(decoder.push(header.subarray(0, 3))).toEqual([]);
    expect(decoder.push(header.subarray(3))).toEqual([{ kind: "oversize", length: MAX_FRAME_BYTES + 1 }]);
  });

  it("reports the largest length a header can announce", () => {
    expect(new FrameDecoder(MAX_FRAME_BYTES).push(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toEqual([{ kind: "oversize", length: 0xffffffff }]);
  });

  it("returns the frames before an oversize header, then the oversize event, and nothing after it", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const chunk = Buffer.concat([encodeFrame("before"), rawFrame(5000, "{}"), encodeFrame("after")]);
    expect(decoder.push(chunk)).toEqual([
      { kind: "frame", value: "before" },
      { kind: "oversize", length: 5000 },
    ]);
  });

  it("reports a payload that is not JSON as malformed", () => {
    const [event] = new FrameDecoder(MAX_FRAME_BYTES).push(rawFrame(8, "not json"));
    expect(event?.kind).toBe("malformed");
    expect(event?.kind === "malformed" ? event.message : "").toMatch(/^frame is not JSON: /);
  });

  it("reports an empty payload and a truncated JSON document as malformed", () => {
    expect(new FrameDecoder(MAX_FRAME_BYTES).push(rawFrame(0, ""))[0]?.kind).toBe("malformed");
    expect(new FrameDecoder(MAX_FRAME_BYTES).push(rawFrame(5, '{"a":'))[0]?.kind).toBe("malformed");
  });

  it("returns the frames before a malformed one, then the malformed event, and nothing after it", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    const events = decoder.push(Buffer.concat([encodeFrame(1), rawFrame(3, "{{{"), encodeFrame(2)]));
    expect(events.map((event) => event.kind)).toEqual(["frame", "malformed"]);
    expect(events[0]).toEqual({ kind: "frame", value: 1 });
  });

  it("decodes nothing more after an oversize header", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    expect(decoder.push(rawFrame(MAX_FRAME_BYTES + 1, ""))).toHaveLength(1);
    expect(decoder.push(encodeFrame("valid"))).toEqual([]);
    expect(decoder.push(Buffer.concat([encodeFrame("also valid"), encodeFrame("and this")]))).toEqual([]);
  });

  it("decodes nothing more after a malformed payload", () => {
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    expect(decoder.push(rawFrame(3, "???"))).toHaveLength(1);
    expect(decoder.push(encodeFrame("valid"))).toEqual([]);
    expect(decoder.push(rawFrame(MAX_FRAME_BYTES + 1, ""))).toEqual([]);
  });

  it("decodes a multi-byte character split between chunks", () => {
    const frame = encodeFrame("😀");
    // the emoji is four bytes after the header and the opening quote; split inside it
    const decoder = new FrameDecoder(MAX_FRAME_BYTES);
    expect(decoder.push(frame.subarray(0, 7))).toEqual([]);
    expect(decoder.push(frame.subarray(7))).toEqual([{ kind: "frame", value: "😀" }]);
  });
});
