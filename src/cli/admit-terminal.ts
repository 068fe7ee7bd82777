import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config/index.js";
import { ConfigError, type RejectVerdict, type TerminalTask } from "../spec/index.js";
import { scoreEvaluation, type FixtureLabel, type FixtureOutcome } from "../core/admission/index.js";
import { admitTerminalTask, TERMINAL_GATE_NAMES } from "../core/admission/index.js";
import type { TerminalAdmissionContext } from "../core/admission/index.js";
import { isHarborTaskFolder, readHarborTask, readHarborTaskFolders, TerminalJailRuntime } from "../adapters/terminal/index.js";
import { writeAdmission, writeEvaluationReport } from "./admit-output.js";
import { terminalRuntimeOf } from "./terminal-runtime.js";

/** The hand-written terminal seed tasks shipped with envforge (the terminal novelty pool's start). */
export const TERMINAL_SEED_FOLDER = fileURLToPath(new URL("../../envs/terminal-seeds", import.meta.url));

/** The terminal seed tasks, read; a seed that does not read is a defect of the checkout. */
export function terminalSeeds(): TerminalTask[] {
  return readHarborTaskFolders(TERMINAL_SEED_FOLDER).map((task) => {
    if ("status" in task) throw new ConfigError(`terminal seed ${String(task.evidence?.folder ?? TERMINAL_SEED_FOLDER)} does not read: ${task.message}`);
    return task;
  });
}

/** Whether `dir` is a folder of labelled Harbor task fixtures (for `admit --eval`). */
export function isTerminalCorpus(dir: string): boolean {
  return !isHarborTaskFolder(dir) && readHarborTaskFolders(dir).length > 0;
}

function context(config: Config, runtime: TerminalJailRuntime, pool: readonly TerminalTask[]): TerminalAdmissionContext {
  return { runtime, settings: config.admission, pool };
}

/**
 * `envforge admit TASK_DIR` for a Harbor task folder: reads it (a `static` verdict when it does not
 * read) and runs the terminal gates against the terminal seeds as the novelty pool. Returns 0
 * admitted, 1 rejected.
 */
export async function admitTerminalCommand(path: string, config: Config, json: boolean | undefined, write: (text: string) => void): Promise<number> {
  const task = readHarborTask(path);
  if ("status" in task) {
    return writeAdmission({ admitted: false, verdicts: [task], timingsMs: { static: 0 } }, json, write);
  }
  const runtime = terminalRuntimeOf(config);
  try {
    const here = realpathSync(path);
    const pool = terminalSeeds().filter((seed) => seed.folder !== here);
    const result = await admitTerminalTask(task, context(config, runtime, pool), { gates: config.admission.gates, skip: config.admission.skip });
    return writeAdmission(result, json, write);
  } finally {
    await runtime.close();
  }
}

/**
 * `envforge admit --eval DIR` for a corpus of Harbor task fixtures (each with `expected.json`):
 * admits every fixture and every terminal seed (which must be admitted) one after another, and
 * prints the evaluation report. Returns 0 on full detection without false rejections.
 */
export async function evaluateTerminalCommand(dir: string, config: Config, json: boolean | undefined, write: (text: string) => void): Promise<number> {
  const seeds = terminalSeeds();
  const runtime = terminalRuntimeOf(config);
  try {
    const outcomes: FixtureOutcome[] = [];
    const folders = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && isHarborTaskFolder(join(dir, entry.name))).map((entry) => join(dir, entry.name)).sort();
    const entries: { fixture: string; label: FixtureLabel; folder: string }[] = folders.map((folder) => {
      const raw = JSON.parse(readFileSync(join(folder, "expected.json"), "utf8")) as { gate?: string | null; reason?: string | null };
      return { fixture: folder.split("/").pop() as string, label: { gate: raw.gate ?? null, reason: raw.reason ?? null }, folder };
    });
    for (const seed of seeds) entries.push({ fixture: `seed:${seed.name}`, label: { gate: null, reason: null }, folder: seed.folder });
    for (const entry of entries) {
      const task = readHarborTask(entry.folder);
      let rejectedBy: RejectVerdict | null;
      if ("status" in task) rejectedBy = task;
      else {
        const pool = seeds.filter((seed) => seed.folder !== task.folder);
        const last = (await admitTerminalTask(task, context(config, runtime, pool), { gates: config.admission.gates, skip: config.admission.skip })).verdicts.at(-1);
        rejectedBy = last?.status === "reject" ? last : null;
      }
      outcomes.push({ fixture: entry.fixture, label: entry.label, rejectedBy });
    }
    const report = scoreEvaluation(outcomes, ["static", ...TERMINAL_GATE_NAMES]);
    return writeEvaluationReport(report, json, write, "broken terminal tasks");
  } finally {
    await runtime.close();
  }
}
