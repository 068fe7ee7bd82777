import { join } from "node:path";
import { ggufPathOf } from "../adapters/llm/index.js";
import {
  REFERENCE_TRAINER_FILES,
  TinkerHttp,
  referenceTrainerStatus,
  runConformance,
  startReferenceTrainer,
  stopReferenceTrainer,
  type ConformanceReport,
} from "../adapters/trainer/index.js";
import { EnvforgeError } from "../spec/index.js";
import { RUNS_FOLDER } from "./run-folders.js";
import { runEngineSyncConformance } from "./engine-conformance.js";

/** Run directory of `envforge trainer up|down|status` when `--out` is not given. */
export const DEFAULT_TRAINER_DIR = join(RUNS_FOLDER, "trainer");

/** Flags of `envforge trainer up`. */
export interface TrainerUpFlags {
  readonly out?: string;
  /** `embedded` (or `embedded:<name>`), a `.gguf` file, a Hugging Face folder, or `tiny-random`. */
  readonly model?: string;
  readonly port?: number;
  readonly threads?: number;
}

/** `envforge trainer up`: starts the reference trainer (or finds it running) and prints its URL. */
export async function trainerUp(flags: TrainerUpFlags): Promise<number> {
  const runDir = flags.out ?? DEFAULT_TRAINER_DIR;
  const model = ggufPathOf(flags.model ?? "embedded") ?? (flags.model as string);
  const state = await startReferenceTrainer({
    runDir,
    model,
    ...(flags.port === undefined ? {} : { port: flags.port }),
    ...(flags.threads === undefined ? {} : { threads: flags.threads }),
  });
  process.stdout.write(`reference trainer ready at ${state.url} (pid ${state.pid}, model ${state.model}); log: ${join(runDir, REFERENCE_TRAINER_FILES.log)}\n`);
  return 0;
}

/** `envforge trainer down`: stops the reference trainer recorded in the run directory. */
export async function trainerDown(flags: { readonly out?: string }): Promise<number> {
  const runDir = flags.out ?? DEFAULT_TRAINER_DIR;
  const stopped = await stopReferenceTrainer(runDir);
  process.stdout.write(stopped ? `reference trainer in ${runDir} stopped\n` : `no reference trainer running in ${runDir}\n`);
  return 0;
}

/** `envforge trainer status`: exit 0 when the recorded trainer answers its health check, else 1. */
export async function trainerStatus(flags: { readonly out?: string }): Promise<number> {
  const runDir = flags.out ?? DEFAULT_TRAINER_DIR;
  const status = await referenceTrainerStatus(runDir);
  if (status.state === null) {
    process.stdout.write(`no reference trainer recorded in ${runDir}\n`);
    return 1;
  }
  const health = status.healthy ? "healthy" : status.alive ? "starting or not answering" : "not running";
  process.stdout.write(`reference trainer ${health}: ${status.state.url} (pid ${status.state.pid}, model ${status.state.model})\n`);
  return status.healthy ? 0 : 1;
}

/** Flags of `envforge trainer conformance`. */
export interface ConformanceFlags {
  readonly url: string;
  readonly json?: boolean;
  readonly baseModel?: string;
  /** Name of the environment variable holding the API key. @default "TINKER_API_KEY" */
  readonly apiKeyEnv?: string;
  /**
   * GGUF file the trainer's base model was loaded from: adds the engine weight-sync checks
   * ({@link runEngineSyncConformance}; the trainer must run on this machine). @default none
   */
  readonly engineModel?: string;
}

/**
 * `envforge trainer conformance`: runs the suite; exit 0 when every check passed, else 1.
 * An unreachable server is a set-up error (exit 2), not a failed check; with `--json` it is
 * printed as `{ "passed": 0, "failed": 0, "checks": [], "error": { code, message } }`.
 */
export async function trainerConformance(flags: ConformanceFlags): Promise<number> {
  const apiKey = process.env[flags.apiKeyEnv ?? "TINKER_API_KEY"];
  const http = new TinkerHttp({ baseUrl: flags.url, ...(apiKey ? { apiKey } : {}) });
  try {
    await http.get("/api/v1/healthz");
  } catch (error) {
    if (!flags.json || !(error instanceof EnvforgeError)) throw error;
    const body = { passed: 0, failed: 0, checks: [], error: { code: error.code, message: error.message } };
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return 2;
  }
  const trainerReport = await runConformance(http, flags.baseModel === undefined ? {} : { baseModel: flags.baseModel });
  const engineChecks =
    flags.engineModel === undefined ? [] : await runEngineSyncConformance(http, { enginePath: flags.engineModel, ...(flags.baseModel === undefined ? {} : { baseModel: flags.baseModel }) });
  const checks = [...trainerReport.checks, ...engineChecks];
  const report: ConformanceReport = { passed: checks.filter((check) => check.passed).length, failed: checks.filter((check) => !check.passed).length, checks };
  process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatConformance(report));
  return report.failed === 0 ? 0 : 1;
}

/** Human-readable conformance report, one line per check. */
export function formatConformance(report: ConformanceReport): string {
  const lines = report.checks.map((check) => `${check.passed ? "PASS" : "FAIL"}  ${check.name}: ${check.detail}`);
  lines.push(`${report.passed} passed, ${report.failed} failed`);
  return `${lines.join("\n")}\n`;
}
