import { spawn } from "node:child_process";
import { existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TrainerUnavailableError } from "../../../spec/index.js";
import { freePort } from "../../../support/free-port.js";
import { makeDirectory } from "../../../support/make-directory.js";

/** Files the reference trainer keeps in a run directory. */
export const REFERENCE_TRAINER_FILES = { log: "trainer.log", state: "trainer.json", checkpoints: "trainer-checkpoints" } as const;

/** The repository's `trainer/` folder (the Python reference trainer). */
export const REFERENCE_TRAINER_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../trainer");

/** The reference trainer's model spec for a tiny randomly initialised model (tests only; nothing to load from disk). */
export const TINY_RANDOM_MODEL = "tiny-random";

/** Options of {@link startReferenceTrainer}. */
export interface ReferenceTrainerOptions {
  /** Run directory: log, state file and checkpoints go here. */
  readonly runDir: string;
  /** A `.gguf` file, a Hugging Face model folder, or `tiny-random`. */
  readonly model: string;
  /** TCP port on 127.0.0.1; when another process holds it, a free port the system picks is used instead. @default 8765 */
  readonly port?: number;
  /** Torch threads; 0 = one per core. @default 0 */
  readonly threads?: number;
  /** Python interpreter. @default trainer/.venv/bin/python */
  readonly python?: string;
  /** How long to wait for the health check, milliseconds (the first GGUF load converts the file: about a minute). @default 300000 */
  readonly startTimeoutMs?: number;
  /** Injected for tests. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
}

/** A running reference trainer, as recorded in `trainer.json`. */
export interface ReferenceTrainerState {
  readonly pid: number;
  readonly url: string;
  readonly model: string;
  readonly startedAt: string;
}

/**
 * Starts the Python reference trainer detached, logging to `<runDir>/trainer.log`,
 * and waits until `GET /api/v1/healthz` answers. Its pid and URL are written to
 * `<runDir>/trainer.json` so `envforge trainer down|status` find it later. The port must be
 * free when the trainer starts: a health check on a port another process holds would be
 * answered by that process (another run's trainer, found by a new user's quick start), so a
 * taken port is replaced by a free one, and the health check counts only while the child runs.
 *
 * @throws TrainerUnavailableError when the interpreter is missing (run ./scripts/setup.sh),
 *   the process exits, or the health check does not pass within `startTimeoutMs`
 */
export async function startReferenceTrainer(options: ReferenceTrainerOptions): Promise<ReferenceTrainerState> {
  const python = options.python ?? join(REFERENCE_TRAINER_DIR, ".venv/bin/python");
  if (!existsSync(python)) {
    throw new TrainerUnavailableError(`the reference trainer's Python (${python}) is missing; run ./scripts/setup.sh`);
  }
  const running = await referenceTrainerStatus(options.runDir, options.fetch);
  if (running.healthy && running.state) return running.state;
  makeDirectory(options.runDir);
  const port = await freePort(options.port ?? 8765);
  const log = openSync(join(options.runDir, REFERENCE_TRAINER_FILES.log), "a");
  const child = spawn(
    python,
    ["-m", "envforge_trainer", "--model", options.model, "--port", String(port), "--threads", String(options.threads ?? 0), "--checkpoint-dir", resolve(options.runDir, REFERENCE_TRAINER_FILES.checkpoints)],
    { cwd: REFERENCE_TRAINER_DIR, detached: true, stdio: ["ignore", log, log] },
  );
  let exited: number | null = null;
  child.on("exit", (code) => {
    exited = code ?? -1;
  });
  child.unref();
  if (child.pid === undefined) throw new TrainerUnavailableError(`could not start ${python}`);
  const state: ReferenceTrainerState = { pid: child.pid, url: `http://127.0.0.1:${port}`, model: options.model, startedAt: new Date().toISOString() };
  writeFileSync(join(options.runDir, REFERENCE_TRAINER_FILES.state), `${JSON.stringify(state, null, 2)}\n`);
  const deadline = Date.now() + (options.startTimeoutMs ?? 300_000);
  while (Date.now() < deadline) {
    if (exited !== null) {
      rmSync(join(options.runDir, REFERENCE_TRAINER_FILES.state), { force: true });
      throw new TrainerUnavailableError(`the reference trainer exited with code ${exited}; see ${join(options.runDir, REFERENCE_TRAINER_FILES.log)}`);
    }
    // the answer counts only if our child still runs (a child that could not bind exits)
    if ((await healthy(state.url, options.fetch)) && exited === null && processAlive(child.pid)) return state;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  stopProcess(state.pid);
  throw new TrainerUnavailableError(`the reference trainer did not pass its health check within ${options.startTimeoutMs ?? 300_000} ms`, { retryable: true });
}


/** Whether a trainer is recorded in `runDir` and answers its health check. */
export async function referenceTrainerStatus(
  runDir: string,
  fetchImpl?: typeof globalThis.fetch,
): Promise<{ readonly state: ReferenceTrainerState | null; readonly alive: boolean; readonly healthy: boolean }> {
  const state = readState(runDir);
  if (state === null) return { state: null, alive: false, healthy: false };
  const alive = processAlive(state.pid);
  return { state, alive, healthy: alive && (await healthy(state.url, fetchImpl)) };
}

/**
 * Stops the trainer recorded in `runDir` (SIGTERM, then SIGKILL after 5 s) and removes its state file, unless the
 * file names another trainer by then (a run started in the same folder meanwhile); returns whether one was running.
 */
export async function stopReferenceTrainer(runDir: string): Promise<boolean> {
  const state = readState(runDir);
  if (state === null) return false;
  const wasAlive = processAlive(state.pid);
  if (wasAlive) {
    stopProcess(state.pid, "SIGTERM");
    for (let waited = 0; waited < 5000 && processAlive(state.pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    if (processAlive(state.pid)) stopProcess(state.pid, "SIGKILL");
  }
  // a run started in the same folder while this one stopped has written its own state: keep it
  if (readState(runDir)?.pid === state.pid) rmSync(join(runDir, REFERENCE_TRAINER_FILES.state), { force: true });
  return wasAlive;
}

function readState(runDir: string): ReferenceTrainerState | null {
  try {
    const parsed = JSON.parse(readFileSync(join(runDir, REFERENCE_TRAINER_FILES.state), "utf8")) as Partial<ReferenceTrainerState>;
    if (typeof parsed.pid !== "number" || typeof parsed.url !== "string") return null;
    return { pid: parsed.pid, url: parsed.url, model: String(parsed.model ?? ""), startedAt: String(parsed.startedAt ?? "") };
  } catch {
    return null;
  }
}

async function healthy(url: string, fetchImpl: typeof globalThis.fetch = globalThis.fetch): Promise<boolean> {
  try {
    const response = await fetchImpl(`${url}/api/v1/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is alive and is the reference trainer: where `/proc` exists its
 * command line must run `envforge_trainer`, so a stale state file whose pid was
 * reused by another process never gets that process signalled.
 */
function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/cmdline")) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("envforge_trainer");
  } catch {
    return false;
  }
}

function stopProcess(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
