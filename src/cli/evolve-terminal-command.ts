import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readCorpus } from "../adapters/corpus/index.js";
import { openModel } from "../adapters/llm/index.js";
import { readHarborTask } from "../adapters/terminal/index.js";
import { readTaskFiles, writeTaskFolder } from "../adapters/terminal/index.js";
import { TerminalJailRuntime } from "../adapters/terminal/index.js";
import type { Config } from "../config/index.js";
import {
  attemptTerminalGeneration,
  evolutionSettingsFromConfig,
  extractTerminalSequence,
  readRubrics,
  type TerminalGenerationAttempt,
  type TerminalLineageMember,
} from "../core/evolution/index.js";
import { LazyModel } from "../core/selfplay/index.js";
import { ConfigError, type EvolutionDirection, type ScenarioSkillSequence } from "../spec/index.js";
import { terminalSeeds } from "./admit-terminal.js";
import { TERMINAL_CORPUS_PATH } from "./design-terminal-command.js";
import { resumeCommand } from "./invocation.js";
import { modelOptionsOf } from "./model-options.js";
import { onStopSignals } from "./stop-signals.js";

/** The record of a terminal lineage, `<out>/terminal-lineage.json`, rewritten after every attempt. */
export interface TerminalLineageDocument {
  readonly seed: string;
  readonly model: string;
  /** Generation 0 (the seed) first; each member's task folder is `<out>/g<N>`. */
  readonly members: readonly { readonly generation: number; readonly folder: string; readonly sequence: ScenarioSkillSequence; readonly direction: EvolutionDirection | null; readonly plan: string | null; readonly difficulty: number | null }[];
  /** Every attempt, with its planning and modification rounds and verdicts. */
  readonly attempts: readonly Omit<TerminalGenerationAttempt, "child">[];
}

/** The rubrics of terminal lineages (`evolution.rubrics` overrides them). */
export const TERMINAL_RUBRICS_PATH = fileURLToPath(new URL("../../rubrics/terminal-evolution.md", import.meta.url));

/** File of the lineage record in a terminal evolution's folder. */
export const TERMINAL_LINEAGE_FILE = "terminal-lineage.json";

/**
 * `envforge evolve --from TASK_DIR` for a Harbor task folder: evolves one terminal lineage for
 * `evolution.generations` generations ({@link attemptTerminalGeneration}, up to
 * `evolution.attemptsPerGeneration` attempts each) into `outDir`: `g0` (the seed), `g1`, … as task
 * folders, every attempt's children under `attempts/`, and {@link TERMINAL_LINEAGE_FILE}. With
 * `resume` it continues from the last validated generation. Returns 0, or 1 when the model never
 * answered.
 * @throws ConfigError for a task folder that does not read, or an out folder that holds another evolution
 */
export async function evolveTerminalCommand(from: string, config: Config, outDir: string, resume: boolean, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const seedTask = readHarborTask(from);
  if ("status" in seedTask) throw new ConfigError(`--from ${from}: ${seedTask.message}`);
  const recordPath = join(outDir, TERMINAL_LINEAGE_FILE);
  if (!resume && existsSync(recordPath)) throw new ConfigError(`${outDir} already holds a terminal lineage; pass --resume to continue it or choose another --out`);
  if (resume && !existsSync(recordPath)) throw new ConfigError(`--resume: ${outDir} holds no terminal lineage (${recordPath} not found)`);
  const settings = evolutionSettingsFromConfig(config);
  const rubrics = readRubrics(config.evolution.rubrics ?? TERMINAL_RUBRICS_PATH);
  const corpus = readCorpus(config.corpus.path ?? TERMINAL_CORPUS_PATH);
  const model = new LazyModel(config.model.spec, () => openModel(config.model.spec, modelOptionsOf(config)));
  const runtime = new TerminalJailRuntime();
  const lineageId = `terminal-${basename(resolve(from))}`;
  mkdirSync(outDir, { recursive: true });
  const previous = resume ? (JSON.parse(readFileSync(recordPath, "utf8")) as TerminalLineageDocument) : null;
  const members: TerminalLineageDocument["members"][number][] = [...(previous?.members ?? [])];
  const attempts: TerminalLineageDocument["attempts"][number][] = [...(previous?.attempts ?? [])];
  const save = () => writeFileSync(recordPath, `${JSON.stringify({ seed: resolve(from), model: config.model.spec, members, attempts } satisfies TerminalLineageDocument, null, 2)}\n`);
  const removeStopHandlers = onStopSignals(() => {
    process.stderr.write(`\nenvforge: interrupted; every validated generation is in ${outDir}. Continue with: ${resumeCommand("evolve", outDir)}\n`);
  });
  try {
    if (members.length === 0) {
      const seedFolder = join(outDir, "g0");
      rmSync(seedFolder, { recursive: true, force: true });
      cpSync(resolve(from), seedFolder, { recursive: true });
      const task = readHarborTask(seedFolder);
      if ("status" in task) throw new ConfigError(`--from ${from}: ${task.message}`);
      const sequence = await extractTerminalSequence(task, readTaskFiles(seedFolder), model, settings);
      members.push({ generation: 0, folder: seedFolder, sequence, direction: null, plan: null, difficulty: null });
      save();
      write(`g0 ${task.name}: sequence of ${sequence.steps.length} steps (${sequence.source})\n`);
    }
    const pool = terminalSeeds();
    for (let generation = members.length; generation <= settings.generations; generation += 1) {
      const last = members.at(-1) as (typeof members)[number];
      const task = readHarborTask(last.folder);
      if ("status" in task) throw new ConfigError(`${last.folder}: ${task.message}`);
      const parent: TerminalLineageMember = { task, files: readTaskFiles(last.folder), sequence: last.sequence };
      let validated: TerminalGenerationAttempt | null = null;
      // a resumed lineage goes on from the attempts already recorded at this generation
      const first = attempts.filter((recorded) => recorded.generation === generation).length;
      for (let attempt = first; attempt < settings.attemptsPerGeneration && validated === null; attempt += 1) {
        const result = await attemptTerminalGeneration(parent, lineageId, generation, attempt, last.direction, {
          model,
          runtime,
          pool,
          rubrics,
          corpus,
          materialize: (files, gen, round) => {
            const folder = join(outDir, "attempts", `g${gen}-a${attempt}-r${round}`);
            rmSync(folder, { recursive: true, force: true });
            writeTaskFolder(files, folder);
            return readHarborTask(folder);
          },
        }, settings);
        const { child: _child, ...record } = result;
        attempts.push(record);
        if (result.child !== null) {
          const folder = join(outDir, `g${generation}`);
          rmSync(folder, { recursive: true, force: true });
          cpSync(result.child.task.folder, folder, { recursive: true });
          members.push({ generation, folder, sequence: result.child.sequence, direction: result.direction, plan: result.plan?.summary ?? null, difficulty: result.difficulty?.total ?? null });
          validated = result;
        }
        save();
        const rejected = [...result.planning.map((round) => round.review), ...(result.modification.at(-1)?.verdicts ?? [])].filter((verdict) => verdict.status === "reject").at(-1);
        write(`g${generation} attempt ${attempt + 1}: ${result.outcome} (${result.direction}; ${result.planning.length} planning and ${result.modification.length} modification rounds; ${result.seconds} s)${rejected !== undefined && rejected.status === "reject" ? `: last rejection ${rejected.gate}/${rejected.reason}` : ""}\n`);
      }
      if (validated === null) break;
    }
  } finally {
    removeStopHandlers();
    await runtime.close();
    await model.close();
  }
  write(`terminal lineage ${lineageId}: ${members.length - 1} validated generation(s) of ${settings.generations} in ${outDir} (${TERMINAL_LINEAGE_FILE})\n`);
  return model.calls > 0 && model.successes === 0 ? 1 : 0;
}
