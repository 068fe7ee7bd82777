import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../config/index.js";
import { ConfigError, type RejectVerdict, type TerminalTask } from "../spec/index.js";
import { scoreEvaluation, type FixtureLabel, type FixtureOutcome } from "../core/admission/index.js";
import { admitTerminalTask, TERMINAL_GATE_NAMES } from "../core/admission/terminal/terminal-admission.js";
import type { TerminalAdmissionContext } from "../core/admission/terminal/terminal-gate.js";
import { isHarborTaskFolder, readHarborTask } from "../adapters/terminal/harbor-task.js";
import { TerminalJailRuntime } from "../adapters/terminal/terminal-jail.js";
import { escapeControlCharacters, terminalJson } from "./terminal-text.js";

/** The hand-written terminal seed tasks shipped with envforge (the terminal novelty pool's start). */
export const TERMINAL_SEED_FOLDER = fileURLToPath(new URL("../../envs/terminal-seeds", import.meta.url));

/** Task folders directly under `folder` (those with a task.toml), sorted. */
function taskFolders(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isHarborTaskFolder(join(folder, entry.name)))
    .map((entry) => join(folder, entry.name))
    .sort();
}

/** The terminal seed tasks, read; a seed that does not read is a defect of the checkout. */
export function terminalSeeds(): TerminalTask[] {
  return taskFolders(TERMINAL_SEED_FOLDER).map((folder) => {
    const task = readHarborTask(folder);
    if ("status" in task) throw new ConfigError(`terminal seed ${folder} does not read: ${task.message}`);
    return task;
  });
}

/** Whether `dir` is a folder of labelled Harbor task fixtures (for `admit --eval`). */
export function isTerminalCorpus(dir: string): boolean {
  return taskFolders(dir).length > 0;
}

function print(result: { admitted: boolean; verdicts: readonly { status: string; gate: string }[]; timingsMs: Readonly<Record<string, number>> }, json: boolean | undefined, write: (text: string) => void): void {
  const last = result.verdicts.at(-1) as RejectVerdict | undefined;
  const rejected = last?.status === "reject" ? last : null;
  const output = {
    admitted: result.admitted,
    gate: rejected?.gate ?? null,
    reason: rejected?.reason ?? null,
    message: rejected?.message ?? `admitted by ${result.verdicts.map((verdict) => verdict.gate).join(", ")}`,
    timingsMs: result.timingsMs,
  };
  if (json) write(`${terminalJson(output)}\n`);
  else {
    const timings = Object.entries(result.timingsMs).map(([gate, ms]) => `${gate} ${Math.round(ms)} ms`).join(", ");
    write(`${result.admitted ? "admitted" : `rejected by ${output.gate} (${output.reason})`}: ${escapeControlCharacters(output.message)}\n  ${timings}\n`);
  }
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
    print({ admitted: false, verdicts: [task], timingsMs: { static: 0 } }, json, write);
    return 1;
  }
  const runtime = new TerminalJailRuntime();
  try {
    const here = realpathSync(path);
    const pool = terminalSeeds().filter((seed) => seed.folder !== here);
    const result = await admitTerminalTask(task, context(config, runtime, pool), config.admission.skip);
    print(result, json, write);
    return result.admitted ? 0 : 1;
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
  const runtime = new TerminalJailRuntime();
  try {
    const outcomes: FixtureOutcome[] = [];
    const entries: { fixture: string; label: FixtureLabel; folder: string }[] = taskFolders(dir).map((folder) => {
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
        const last = (await admitTerminalTask(task, context(config, runtime, pool), config.admission.skip)).verdicts.at(-1);
        rejectedBy = last?.status === "reject" ? last : null;
      }
      outcomes.push({ fixture: entry.fixture, label: entry.label, rejectedBy });
    }
    const report = scoreEvaluation(outcomes, ["static", ...TERMINAL_GATE_NAMES]);
    if (json) write(`${terminalJson(report)}\n`);
    else {
      write(`${report.detected} of ${report.fixtures} broken terminal tasks detected by their labelled gate; ${report.falseRejections.length} false rejections; ${report.skipped.length} skipped\n`);
      for (const [gate, counts] of Object.entries(report.perGate)) write(`  ${gate}: ${counts.detected}/${counts.expected}\n`);
      for (const miss of report.missed) write(escapeControlCharacters(`  missed ${miss.fixture}: expected ${miss.expected}, got ${miss.got}`) + "\n");
      for (const wrong of report.falseRejections) write(escapeControlCharacters(`  false rejection ${wrong.fixture}: ${wrong.gate}/${wrong.reason}: ${wrong.message}`) + "\n");
    }
    return report.detected === report.fixtures && report.falseRejections.length === 0 ? 0 : 1;
  } finally {
    await runtime.close();
  }
}
