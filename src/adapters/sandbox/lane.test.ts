import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { Lane, type LaneEvent } from "./lane.js";

/** A lane over an in-memory socket: `written` holds what the lane sent, `arrive` feeds it bytes. */
function harness(maxFrameBytes = 1024) {
  const written: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk);
      callback();
    },
  });
  const events: [number, LaneEvent][] = [];
  const lane = new Lane(2, socket, maxFrameBytes, (id, event) => events.push([id, event]));
  const arrive = async (bytes: Buffer) => {
    socket.push(bytes);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { lane, written, events, arrive };
}

function frame(nonce: number, json: string): Buffer {
  const payload = Buffer.from(json, "utf8");
  const header = Buffer.alloc(8);
  header.writeUInt32BE(payload.length + 4, 0);
  header.writeUInt32BE(nonce, 4);
  return Buffer.concat([header, payload]);
}

/** The number of the last request the lane wrote. */
function lastNonce(written: Buffer[]): number {
  return (written.at(-1) as Buffer).readUInt32BE(4);
}

describe("Lane", () => {
  it("delivers the reply that repeats the request's number, split over chunks", async () => {
    const { lane, written, events, arrive } = harness();
    const first = lane.take(7);
    const reset = frame(first, '{"ok":true,"observation":"o"}');
    await arrive(reset.subarray(0, 5));
    await arrive(reset.subarray(5));
    lane.request(Buffer.from('{"op":"step","action":"a"}'));
    const sent = written.at(-1) as Buffer;
    expect(sent.readUInt32BE(0)).toBe(sent.length - 4);
    expect(sent.subarray(8).toString()).toBe('{"op":"step","action":"a"}');
    await arrive(frame(lastNonce(written), '{"ok":true}'));
    expect(events.map(([id, event]) => [id, event.kind === "reply" ? event.payload.toString() : event.kind])).toEqual([
      [7, '{"ok":true,"observation":"o"}'],
      [7, '{"ok":true}'],
    ]);
  });

  it("reports a reply with the wrong number as a protocol violation, then ignores the episode", async () => {
    const { lane, events, arrive } = harness();
    const nonce = lane.take(1);
    await arrive(frame((nonce ^ 1) >>> 0, '{"ok":true,"observation":"forged"}'));
    await arrive(frame(nonce, '{"ok":true,"observation":"late"}'));
    expect(events).toEqual([[1, { kind: "violation", failure: { kind: "protocol_violation", message: "the environment wrote a frame nobody asked for" } }]]);
  });

  it("reports bytes nobody asked for (after the reply) as a protocol violation", async () => {
    const { lane, events, arrive } = harness();
    const nonce = lane.take(1);
    await arrive(Buffer.concat([frame(nonce, '{"ok":true,"observation":"o"}'), Buffer.from("xy")]));
    expect(events.map(([, event]) => event.kind)).toEqual(["reply", "violation"]);
  });

  it("reports a reply longer than the cap as output_limit before reading it", async () => {
    const { lane, events, arrive } = harness(100);
    const nonce = lane.take(3);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(1_000_000, 0);
    header.writeUInt32BE(nonce, 4);
    await arrive(header);
    expect(events).toEqual([[3, { kind: "violation", failure: { kind: "output_limit", message: "reply of 1000000 bytes exceeds 100" } }]]);
  });

  it("discards everything the old episode left (a partial frame included) until the token, then is free", async () => {
    const { lane, events, arrive } = harness();
    const nonce = lane.take(1);
    await arrive(frame(nonce, '{"ok":true,"observation":"o"}').subarray(0, 11)); // a partial reply, then the episode is ended
    const token = Buffer.from(lane.release(), "hex");
    expect(token).toHaveLength(16);
    expect(lane.free).toBe(false);
    await arrive(Buffer.concat([Buffer.from("garbage"), token.subarray(0, 9)]));
    expect(lane.free).toBe(false);
    await arrive(token.subarray(9));
    expect(lane.free).toBe(true);
    expect(events).toEqual([]);
    const next = lane.take(2);
    await arrive(frame(next, '{"ok":true,"observation":"clean"}'));
    expect(events.map(([id, event]) => [id, event.kind === "reply" ? event.payload.toString() : event.kind])).toEqual([[2, '{"ok":true,"observation":"clean"}']]);
  });

  it("ignores bytes while free", async () => {
    const { lane, events, arrive } = harness();
    await arrive(frame(1, "{}"));
    expect(lane.free).toBe(true);
    expect(events).toEqual([]);
  });
});
