import {
  EnvforgeError,
  reject,
  type ChatMessage,
  type CorpusDocument,
  type DifficultyBreakdown,
  type EditPlan,
  type EvolutionDirection,
  type LanguageModel,
  type ModificationRound,
  type PlanningRound,
  type RejectVerdict,
  type ScenarioSkillSequence,
  type TerminalRuntime,
  type TerminalTask,
  type Verdict,
} from "../../spec/index.js";
import { admitTerminalTask } from "../admission/index.js";
import { seededRandom } from "../rollout/index.js";
import { deriveSeed } from "../selfplay/sampling.js";
import type { TaskFiles } from "../terminal/parse-terminal-design.js";
import { renderTaskFiles } from "../terminal/terminal-designer-prompt.js";
import { terminalPackage } from "../terminal/terminal-package.js";
import { frequencyReference, offPolicyDifficulty } from "./difficulty.js";
import { chooseDirection, directionInstruction, editSpan } from "./directions.js";
import { formatSequence, runPlanningLoop } from "./planning-loop.js";
import { review } from "./reviewer.js";
import { rubricsFor, type Rubrics } from "./rubrics.js";
import { parseScenarioSkillSteps } from "./sequence.js";
import type { EvolutionSettings } from "./settings.js";
import { buildTerminalChild } from "./terminal-child.js";

/** A terminal task in a lineage: the task (read from its folder), its files and its scenario–skill sequence. */
export interface TerminalLineageMember {
  readonly task: TerminalTask;
  readonly files: TaskFiles;
  readonly sequence: ScenarioSkillSequence;
}

/** What terminal evolution needs. */
export interface TerminalEvolutionDependencies {
  readonly model: LanguageModel;
  readonly runtime: TerminalRuntime;
  /** Writes a child's files as a task folder for generation `generation`, round `round`, and reads it back (a `static` verdict when it does not read). */
  materialize(files: TaskFiles, generation: number, round: number): TerminalTask | RejectVerdict;
  /** Tasks a child must differ from besides its parent (the terminal seeds). */
  readonly pool: readonly TerminalTask[];
  readonly rubrics: Rubrics;
  readonly corpus: readonly CorpusDocument[];
}

/** One attempt at the next generation of a terminal lineage. */
export interface TerminalGenerationAttempt {
  readonly generation: number;
  readonly direction: EvolutionDirection;
  readonly outcome: "validated" | "plan_rejected" | "validation_failed";
  readonly plan: EditPlan | null;
  readonly planning: readonly PlanningRound[];
  readonly modification: readonly ModificationRound[];
  /** Off-policy difficulty D of the plan's sequence (null without a plan). */
  readonly difficulty: DifficultyBreakdown | null;
  /** The validated child (null otherwise). */
  readonly child: TerminalLineageMember | null;
  readonly seconds: number;
}

/** Characters of each file shown to the Modifier and the reviewer. */
const SHOWN_CHARS = 4000;

function shownFiles(files: TaskFiles): string {
  return renderTaskFiles(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}\n# … (cut)` : text])));
}

/** The Analyst's prompt for a terminal task: the instruction and the oracle's commands (solve.sh). */
export function terminalSequencePrompt(task: TerminalTask, files: TaskFiles): ChatMessage[] {
  return [
    {
      role: "system",
      content:
        "You are the Analyst. You describe how an agent solves a terminal task as an ordered sequence of steps. Each step is a scenario (the situation the agent faces, a short noun phrase) and a skill (what it must do there, a short verb phrase).",
    },
    {
      role: "user",
      content: [
        `Task: ${task.name}`,
        task.instruction.trim(),
        "",
        "The reference solution's commands (solution/solve.sh):",
        "```bash",
        (files["solution/solve.sh"] ?? "").slice(0, SHOWN_CHARS).trimEnd(),
        "```",
        "",
        'Reply with only a JSON array, one step per command group of the solution, e.g. [{"scenario": "unsorted log file", "skill": "filter lines with grep"}, {"scenario": "counted entries", "skill": "sort by count"}].',
      ].join("\n"),
    },
  ];
}

/**
 * The scenario–skill sequence of a terminal task, extracted by the model from the oracle's
 * commands (the environment-evolution source's sequence, from `solution/solve.sh`). A model error or
 * a reply without usable steps falls back to one step per `[metadata].tags` entry in the task's
 * category. Never throws for model output.
 */
export async function extractTerminalSequence(task: TerminalTask, files: TaskFiles, model: LanguageModel, settings: EvolutionSettings): Promise<ScenarioSkillSequence> {
  try {
    const generation = await model.generate(terminalSequencePrompt(task, files), { ...settings.sequence, seed: deriveSeed(settings.seed, task.name, "sequence") });
    const steps = parseScenarioSkillSteps(generation.text);
    if (steps !== null && steps.length > 0) return { steps, source: "model" };
  } catch (error) {
    if (!(error instanceof EnvforgeError)) throw error;
  }
  const manifest = terminalPackage(task).manifest;
  return { steps: manifest.skills.map((skill) => ({ scenario: manifest.scenario, skill })), source: "manifest" };
}

/** The terminal Modifier's prompt; `feedback` is the last round's failures. */
export function terminalModifierPrompt(parent: TerminalLineageMember, plan: EditPlan, instruction: string, feedback: string | null): ChatMessage[] {
  return [
    {
      role: "system",
      content:
        "You are the Modifier. You turn an edit plan into a harder child of a terminal task: a Harbor task folder whose tests (tests/test.sh, writing 1 or 0 to /logs/verifier/reward.txt) check the agent's work and whose solution/solve.sh always passes them. The machine is Debian without network; the Dockerfile may only use FROM debian:bookworm-slim, WORKDIR, ENV, COPY of files in environment/, and RUN without network.",
    },
    {
      role: "user",
      content: [
        "The parent task's files:",
        shownFiles(parent.files),
        "",
        instruction,
        `Plan: ${plan.summary}`,
        "Target sequence:",
        formatSequence(plan.steps),
        ...(feedback === null ? [] : ["", `Your previous child failed validation: ${feedback}`]),
        "",
        "Change instruction.md, the data files, tests/test.sh and solution/solve.sh together so the child follows the plan. Reply with search/replace blocks ('<<<<<<< SEARCH tests/test.sh', lines copied exactly from the file, '=======', the new lines, '>>>>>>> REPLACE'), or with whole new files as fenced blocks naming their path (```bash solution/solve.sh).",
      ].join("\n"),
    },
  ];
}

/**
 * One attempt at the next generation of a terminal lineage (environment evolution on its own
 * domain): direction and effort span drawn from seeds derived from (master seed, lineage,
 * generation, attempt); the planning loop of environment programs, unchanged, on the task's
 * sequence; off-policy difficulty D of the plan's sequence against the parent's and the corpus's
 * frequencies; then Modifier rounds, each child built ({@link buildTerminalChild}), written and read
 * as a task, and validated by the terminal admission gates (the oracle passes on a fresh root, the
 * empty solution and harmless commands fail, the tests are deterministic, novelty against the
 * pool without the parent) and the rubric review. The `level` direction is not offered (a Harbor
 * task has one level): `mixed` draws among length, scenario and skill. Never throws for model
 * output or a broken child.
 */
export async function attemptTerminalGeneration(
  parent: TerminalLineageMember,
  lineageId: string,
  generation: number,
  attempt: number,
  previousDirection: EvolutionDirection | null,
  deps: TerminalEvolutionDependencies,
  settings: EvolutionSettings,
): Promise<TerminalGenerationAttempt> {
  const started = performance.now();
  const random = seededRandom(deriveSeed(settings.seed, lineageId, generation, attempt));
  const drawn = chooseDirection(settings.direction === "level" ? "mixed" : settings.direction, previousDirection, random);
  const direction: EvolutionDirection = drawn === "level" ? "length" : drawn;
  const span = editSpan(settings.effort, parent.sequence.steps.length, random);
  const samplingSeed = deriveSeed(settings.seed, lineageId, generation, attempt, "sampling");
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  const planning = await runPlanningLoop(
    { parent: terminalPackage(parent.task), sequence: parent.sequence.steps, direction, effort: settings.effort, span, rubrics: rubricsFor(deps.rubrics.plan, direction) },
    deps.model,
    { ...settings.planning, proposer: { ...settings.planning.proposer, seed: samplingSeed }, reviewer: { ...settings.planning.reviewer, seed: samplingSeed + 1000 } },
  );
  const base = { generation, direction, planning: planning.rounds };
  if (planning.plan === null) return { ...base, outcome: "plan_rejected", plan: null, modification: [], difficulty: null, child: null, seconds: seconds() };
  const plan = planning.plan;
  const reference = frequencyReference([parent.sequence.steps], deps.corpus, { smoothing: settings.smoothing });
  const difficulty = offPolicyDifficulty(plan.steps, reference);
  const instruction = directionInstruction(direction, settings.effort, span);
  const rounds: ModificationRound[] = [];
  let feedback: string | null = null;
  const pool = deps.pool.filter((task) => task.folder !== parent.task.folder);
  for (let round = 0; round < settings.modification.maxRounds; round += 1) {
    let completion: string;
    try {
      completion = (await deps.model.generate(terminalModifierPrompt(parent, plan, instruction, feedback), { ...settings.modification.modifier, seed: samplingSeed + 3000 + round })).text;
    } catch (error) {
      if (!(error instanceof EnvforgeError)) throw error;
      rounds.push({ completion: "", form: null, verdicts: [reject("modify", "model_error", `${error.code}: ${error.message}`)] });
      continue;
    }
    const built = buildTerminalChild(parent.files, completion);
    if (!built.ok) {
      rounds.push({ completion, form: null, verdicts: [built.verdict] });
      feedback = built.verdict.message;
      continue;
    }
    const task = deps.materialize(built.files, generation, round);
    if ("status" in task) {
      rounds.push({ completion, form: built.form, verdicts: [task] });
      feedback = task.message;
      continue;
    }
    const admission = await admitTerminalTask(task, { runtime: deps.runtime, settings: settings.admission, pool });
    const verdicts: Verdict[] = [...admission.verdicts];
    if (admission.admitted) {
      verdicts.push(await review(deps.model, "child", rubricsFor(deps.rubrics.child, direction), [`Plan: ${plan.summary}`, "Planned sequence:", formatSequence(plan.steps), "", "Child task:", shownFiles(built.files)].join("\n"), { ...settings.reviewer, seed: samplingSeed + 2000 + round }));
    }
    rounds.push({ completion, form: built.form, verdicts });
    const failed = verdicts.filter((verdict): verdict is RejectVerdict => verdict.status === "reject");
    if (failed.length === 0) {
      return { ...base, outcome: "validated", plan, modification: rounds, difficulty, child: { task, files: built.files, sequence: { steps: plan.steps, source: "plan" } }, seconds: seconds() };
    }
    feedback = failed.map((verdict) => `[${verdict.gate}] ${verdict.message}`).join(" ");
  }
  return { ...base, outcome: "validation_failed", plan, modification: rounds, difficulty, child: null, seconds: seconds() };
}
