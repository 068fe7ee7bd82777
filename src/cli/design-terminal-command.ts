import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readCorpus } from "../adapters/corpus/index.js";
import { openModel } from "../adapters/llm/index.js";
import { readHarborTask } from "../adapters/terminal/index.js";
import { readTaskFiles, writeTaskFolder } from "../adapters/terminal/index.js";
import { parseConfig, type Config } from "../config/index.js";
import { admitTerminalTask } from "../core/admission/index.js";
import type { TerminalAdmissionContext } from "../core/admission/index.js";
import { seededRandom } from "../core/rollout/index.js";
import { deriveSeed, sampleWithoutReplacement } from "../core/selfplay/sampling.js";
import { buildTerminalDesignerPrompt } from "../core/terminal/index.js";
import { parseTerminalDesign } from "../core/terminal/index.js";
import { ConfigError, EnvforgeError, reject, type TerminalTask, type Verdict } from "../spec/index.js";
import { TERMINAL_SEED_FOLDER, terminalSeeds } from "./admit-terminal.js";
import { MeteredModel } from "./metered-model.js";
import { modelOptionsOf } from "./model-options.js";
import { terminalRuntimeOf } from "./terminal-runtime.js";

/** The shipped corpus of the terminal Designer: short texts on shell tools, logs, builds and git, written for envforge. */
export const TERMINAL_CORPUS_PATH = fileURLToPath(new URL("../../corpus/terminal.jsonl", import.meta.url));

/** Flags of `envforge design terminal`. */
export interface DesignTerminalFlags {
  readonly out: string;
  readonly model?: string;
  /** Designs to sample. @default 8 */
  readonly designs?: number;
  /** Corpus (.jsonl or folder). @default corpus/terminal.jsonl */
  readonly corpus?: string;
  /** Master seed. @default 1 */
  readonly seed?: number;
  /** Completion tokens per design. @default 2048 */
  readonly maxTokens?: number;
  /** @default 0.7 */
  readonly temperature?: number;
  readonly json?: boolean;
}

/** One line of `<out>/designs.jsonl`. */
export interface TerminalDesignLine {
  readonly index: number;
  readonly corpusDocumentIds: readonly string[];
  readonly completion: string;
  readonly tokens: number;
  readonly modelSeconds: number;
  readonly verdicts: readonly Verdict[];
  /** The admitted task's folder under `<out>/admitted`, or null. */
  readonly admitted: string | null;
}

/** What `envforge design terminal` prints. */
export interface TerminalDesignReport {
  readonly model: string;
  readonly designs: number;
  /** Designs whose completion named every required file. */
  readonly parsed: number;
  /** Designs whose folder read as a Harbor task (the Dockerfile subset included). */
  readonly read: number;
  readonly admitted: number;
  /** Rejections by `gate/reason`. */
  readonly rejections: Readonly<Record<string, number>>;
  readonly designsPerHour: number;
  readonly admittedPerHour: number;
  readonly modelSecondsPerDesign: number;
  readonly tokensPerDesign: number;
}

/**
 * Judges one terminal design: parses the completion ({@link parseTerminalDesign}), writes its files
 * to `folder` (replaced), reads it as a Harbor task and admits it through the terminal gates.
 * Returns every verdict in order and the admitted task (null when rejected). Never throws for a
 * bad design.
 */
export async function judgeTerminalDesign(completion: string, folder: string, context: TerminalAdmissionContext): Promise<{ readonly verdicts: readonly Verdict[]; readonly admitted: TerminalTask | null }> {
  const parsed = parseTerminalDesign(completion);
  if (!parsed.ok) return { verdicts: [parsed.verdict], admitted: null };
  rmSync(folder, { recursive: true, force: true });
  writeTaskFolder(parsed.files, folder);
  const task = readHarborTask(folder);
  if ("status" in task) return { verdicts: [task], admitted: null };
  const result = await admitTerminalTask(task, context);
  return { verdicts: result.verdicts, admitted: result.admitted ? task : null };
}

/** Corpus documents shown per design. */
const DOCUMENTS_PER_DESIGN = 2;

/**
 * `envforge design terminal --out DIR`: the Designer writes terminal tasks (whole Harbor task
 * folders, grounded on the terminal corpus, with the seed config-file as the worked example);
 * each is written to `DIR/designs/<n>/` and admitted through the terminal gates against the seeds
 * and the tasks admitted before it; admitted tasks are copied to `DIR/admitted/`. Every design is
 * appended to `DIR/designs.jsonl` as it ends, and a second run with the same `--out` skips the
 * designs already there (resumable). Returns 0.
 * @throws ConfigError for bad flags (exit 2)
 */
export async function designTerminalCommand(flags: DesignTerminalFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const designs = flags.designs ?? 8;
  if (!Number.isInteger(designs) || designs < 1) throw new ConfigError("--designs must be a positive integer");
  const config: Config = parseConfig(flags.model === undefined ? {} : { model: { spec: flags.model } });
  const out = resolve(flags.out);
  mkdirSync(join(out, "designs"), { recursive: true });
  mkdirSync(join(out, "admitted"), { recursive: true });
  const log = join(out, "designs.jsonl");
  const done: TerminalDesignLine[] = existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as TerminalDesignLine)
    : [];
  const corpus = readCorpus(flags.corpus ?? TERMINAL_CORPUS_PATH);
  const seeds = terminalSeeds();
  const example = readTaskFiles(join(TERMINAL_SEED_FOLDER, "config-file"));
  const admittedTasks: TerminalTask[] = done.filter((line) => line.admitted !== null).flatMap((line) => {
    const task = readHarborTask(line.admitted as string);
    return "status" in task ? [] : [task];
  });
  const model = new MeteredModel(await openModel(config.model.spec, modelOptionsOf(config)));
  const runtime = terminalRuntimeOf(config);
  const seed = flags.seed ?? 1;
  const started = performance.now();
  const resumed = done.length;
  try {
    for (let index = 0; index < designs; index += 1) {
      if (done.some((line) => line.index === index)) continue;
      const documents = sampleWithoutReplacement(corpus, DOCUMENTS_PER_DESIGN, seededRandom(deriveSeed(seed, "terminal-design", index)));
      const prompt = buildTerminalDesignerPrompt(documents, example, [...seeds, ...admittedTasks].map((task) => `${task.name}: ${task.instruction.split("\n")[0]?.slice(0, 100) ?? ""}`));
      const before = { tokens: model.tokens, seconds: model.seconds };
      let completion: string;
      try {
        completion = (await model.generate(prompt.messages, { maxTokens: flags.maxTokens ?? 2048, temperature: flags.temperature ?? 0.7, seed: deriveSeed(seed, "terminal-design-sample", index) })).text;
      } catch (error) {
        if (!(error instanceof EnvforgeError)) throw error;
        // a model error is this design's outcome (as for the program Designer), not the command's end
        completion = "";
        const line: TerminalDesignLine = { index, corpusDocumentIds: prompt.corpusDocumentIds, completion, tokens: 0, modelSeconds: 0, verdicts: [reject("model", "model_error", `${error.code}: ${error.message}`)], admitted: null };
        appendFileSync(log, `${JSON.stringify(line)}\n`);
        done.push(line);
        if (!flags.json) write(`design ${index + 1}/${designs}: model error: ${error.message}\n`);
        continue;
      }
      const judged = await judgeTerminalDesign(completion, join(out, "designs", String(index)), { runtime, settings: config.admission, pool: [...seeds, ...admittedTasks] });
      const verdicts = judged.verdicts;
      let admitted: string | null = null;
      if (judged.admitted !== null) {
        admitted = join(out, "admitted", `${index}-${judged.admitted.name.replace(/[^a-z0-9-]+/gi, "-").toLowerCase()}`);
        cpSync(judged.admitted.folder, admitted, { recursive: true });
        const copy = readHarborTask(admitted);
        if (!("status" in copy)) admittedTasks.push(copy);
      }
      const line: TerminalDesignLine = {
        index,
        corpusDocumentIds: prompt.corpusDocumentIds,
        completion,
        tokens: model.tokens - before.tokens,
        modelSeconds: Math.round((model.seconds - before.seconds) * 10) / 10,
        verdicts,
        admitted,
      };
      appendFileSync(log, `${JSON.stringify(line)}\n`);
      done.push(line);
      const last = verdicts.at(-1);
      if (!flags.json) write(`design ${index + 1}/${designs}: ${admitted !== null ? `admitted (${admitted})` : last?.status === "reject" ? `rejected by ${last.gate}: ${last.reason}` : "rejected"} (${line.tokens} tokens, ${line.modelSeconds} s of model time)\n`);
    }
  } finally {
    await runtime.close();
    await model.close();
  }
  const hours = (performance.now() - started) / 3_600_000;
  const report = summarise(config.model.spec, done, done.slice(resumed), hours);
  write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return 0;
}

/** The report over every design in the log; the hourly rates over `fresh` (this invocation's) and `hours`. */
function summarise(model: string, lines: readonly TerminalDesignLine[], fresh: readonly TerminalDesignLine[], hours: number): TerminalDesignReport {
  const rejections: Record<string, number> = {};
  for (const line of lines) {
    const last = line.verdicts.at(-1);
    if (line.admitted === null && last?.status === "reject") rejections[`${last.gate}/${last.reason}`] = (rejections[`${last.gate}/${last.reason}`] ?? 0) + 1;
  }
  const admitted = lines.filter((line) => line.admitted !== null).length;
  const perHour = (count: number) => (hours > 0 ? Math.round((count / hours) * 10) / 10 : 0);
  const mean = (values: readonly number[]) => (values.length === 0 ? 0 : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 10) / 10);
  return {
    model,
    designs: lines.length,
    parsed: lines.filter((line) => !line.verdicts.some((verdict) => verdict.gate === "parse")).length,
    read: lines.filter((line) => !line.verdicts.some((verdict) => verdict.gate === "parse" || verdict.gate === "static")).length,
    admitted,
    rejections,
    designsPerHour: perHour(fresh.length),
    admittedPerHour: perHour(fresh.filter((line) => line.admitted !== null).length),
    modelSecondsPerDesign: mean(lines.map((line) => line.modelSeconds)),
    tokensPerDesign: mean(lines.map((line) => line.tokens)),
  };
}

function formatReport(report: TerminalDesignReport): string {
  const rejected = Object.entries(report.rejections).sort((a, b) => b[1] - a[1]).map(([reason, count]) => `  rejected ${reason}: ${count}`);
  return [
    `terminal designs by ${report.model}: ${report.designs} designed, ${report.parsed} parsed, ${report.read} read as Harbor tasks, ${report.admitted} admitted`,
    ...rejected,
    `  ${report.designsPerHour} designs/hour, ${report.admittedPerHour} admitted/hour (this invocation's wall time); ${report.modelSecondsPerDesign} s of model time and ${report.tokensPerDesign} tokens per design`,
    "",
  ].join("\n");
}
