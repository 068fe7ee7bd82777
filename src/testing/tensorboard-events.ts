import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { TRAINER_PYTHON } from "../dashboard/tensorboard/index.js";

/** A scalar read back from an event file. */
export interface EventScalar {
  readonly tag: string;
  readonly step: number;
  /** float32, as the file stores it. */
  readonly value: number;
  /** Seconds since the epoch. */
  readonly wallTime: number;
}

/** What an event file holds, decoded independently of the writer. */
export interface DecodedEventFile {
  /** `file_version` of the first event (`brain.Event:2`). */
  readonly fileVersion: string | null;
  readonly scalars: readonly EventScalar[];
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of `bytes`. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC32C_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: `((crc >>> 15) | (crc << 17)) + 0xa282ead8`, mod 2³². */
const masked = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;

/**
 * The records of a TFRecord file (TensorBoard's event file framing): per record a little-endian
 * uint64 length, the masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of the data.
 * @throws Error on a truncated record or a CRC that does not match
 */
export function readTfRecords(path: string): Buffer[] {
  const bytes = readFileSync(path);
  const records: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 12 > bytes.length) throw new Error(`${path}: truncated record header at byte ${offset}`);
    const header = bytes.subarray(offset, offset + 8);
    const length = Number(header.readBigUInt64LE(0));
    if (bytes.readUInt32LE(offset + 8) !== masked(crc32c(header))) throw new Error(`${path}: length CRC mismatch at byte ${offset}`);
    const start = offset + 12;
    if (start + length + 4 > bytes.length) throw new Error(`${path}: truncated record at byte ${offset}`);
    const data = bytes.subarray(start, start + length);
    if (bytes.readUInt32LE(start + length) !== masked(crc32c(data))) throw new Error(`${path}: data CRC mismatch at byte ${offset}`);
    records.push(Buffer.from(data));
    offset = start + length + 4;
  }
  return records;
}

const DECODE = `
import base64, json, sys
sys.modules.setdefault("torch", None)  # tensorboardX's package import would load torch (seconds) for nothing
from tensorboardX.proto import event_pb2
out = []
for line in sys.stdin.read().split():
    event = event_pb2.Event()
    event.ParseFromString(base64.b64decode(line))
    values = [{"tag": v.tag, "value": v.simple_value} for v in event.summary.value if v.WhichOneof("value") == "simple_value"]
    out.append({"wallTime": event.wall_time, "step": event.step, "fileVersion": event.file_version, "values": values})
print(json.dumps(out))
`;

/**
 * Reads an event file back: TFRecord framing and CRCs checked here, each record parsed as a
 * `tensorflow.Event` protobuf by the `event_pb2` module tensorboardX bundles (run in `python`).
 */
export function readEventFile(path: string, python: string = TRAINER_PYTHON): DecodedEventFile {
  const records = readTfRecords(path);
  const output = execFileSync(python, ["-I", "-W", "ignore", "-c", DECODE], { input: records.map((record) => record.toString("base64")).join("\n"), encoding: "utf8" });
  const events = JSON.parse(output) as { wallTime: number; step: number; fileVersion: string; values: { tag: string; value: number }[] }[];
  return {
    fileVersion: events[0]?.fileVersion || null,
    scalars: events.flatMap((event) => event.values.map((value) => ({ tag: value.tag, step: event.step, value: value.value, wallTime: event.wallTime }))),
  };
}
