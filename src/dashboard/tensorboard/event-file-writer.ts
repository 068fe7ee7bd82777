import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { REFERENCE_TRAINER_DIR } from "../../adapters/trainer/index.js";
import { ConfigError } from "../../spec/index.js";
import { EventWriteError } from "./event-write-error.js";
import type { ScalarPoint } from "./scalar-series.js";

/** The writer program (next to this module in `src/` and, copied by the build, in `dist/`). */
export const EVENT_WRITER_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "event_writer.py");

/** The Python that has tensorboardX: the reference trainer's virtualenv (`scripts/setup.sh`, step 2b). */
export const TRAINER_PYTHON = join(REFERENCE_TRAINER_DIR, ".venv/bin/python");

/** Options of {@link writeEventFile}. */
export interface EventFileWriterOptions {
  /** Python interpreter with tensorboardX. @default {@link TRAINER_PYTHON} */
  readonly python?: string;
  /** How long the writer may take, milliseconds. @default 120000 */
  readonly timeoutMs?: number;
}

/**
 * Writes `points` as scalars into one new TensorBoard event file in the folder `logdir` (which
 * should be empty: the caller finds the file by listing it), with tensorboardX's `SummaryWriter`
 * in the trainer's Python, fed the points as JSON on stdin by `event_writer.py`.
 *
 * Why tensorboardX and not a TypeScript encoder: the event format is TFRecord framing (length,
 * masked CRC-32C of length and of data) around `tensorflow.Event` protobufs; tensorboardX is the
 * maintained writer used by PyTorch projects, bundles those protos, and runs on the protobuf 7
 * already in `trainer/.venv`, so envforge carries no protobuf schema or CRC code of its own and no
 * new npm dependency. The cost is one Python start (about a second) per export.
 *
 * @throws ConfigError when the interpreter is missing or lacks tensorboardX (run ./scripts/setup.sh)
 * @throws EventWriteError when the writer exits with an error or runs past `timeoutMs`
 */
export async function writeEventFile(logdir: string, points: readonly ScalarPoint[], options: EventFileWriterOptions = {}): Promise<void> {
  const python = options.python ?? TRAINER_PYTHON;
  if (!existsSync(python)) {
    throw new ConfigError(`TensorBoard export needs the trainer's Python with tensorboardX (${python} is missing); run ./scripts/setup.sh`);
  }
  const input = JSON.stringify({ logdir, points: points.map((point) => [point.tag, point.step, point.value, point.wallTime]) });
  const timeoutMs = options.timeoutMs ?? 120_000;
  const { code, signal, stderr, timedOut } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; timedOut: boolean }>((resolve, reject) => {
    const child = spawn(python, ["-I", "-W", "ignore", EVENT_WRITER_SCRIPT], { stdio: ["pipe", "ignore", "pipe"] });
    let stderrTail = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new EventWriteError(`could not start ${python}: ${error.message}`, { cause: error }));
    });
    child.on("close", (exitCode, exitSignal) => {
      clearTimeout(timer);
      resolve({ code: exitCode, signal: exitSignal, stderr: stderrTail, timedOut });
    });
    // a writer that dies before reading everything closes the pipe; its exit code says why
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
  const tail = stderr.trim().split("\n").slice(-3).join(" | ");
  if (timedOut) throw new EventWriteError(`the TensorBoard writer for ${logdir} ran past ${timeoutMs} ms`, { retryable: true });
  if (code === 3) throw new ConfigError(`TensorBoard export needs tensorboardX in ${python} (${tail}); run ./scripts/setup.sh`);
  if (code !== 0) throw new EventWriteError(`the TensorBoard writer for ${logdir} failed (${signal ?? `exit ${code}`}): ${tail}`);
}
