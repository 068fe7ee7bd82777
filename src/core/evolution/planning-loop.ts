import { z } from "zod";
import {
  EnvforgeError,
  reject,
  type ChatMessage,
  type EditPlan,
  type EnvPackage,
  type EvolutionDirection,
  type EvolutionEffort,
  type LanguageModel,
  type PlanningRound,
  type ScenarioSkillStep,
  type Verdict,
} from "../../spec/index.js";
import { findJson } from "./completion-json.js";
import { planGrammar } from "./grammars.js";
import { directionInstruction, type EditSpan } from "./directions.js";
import { normalizeLabel } from "./difficulty.js";
import { review, type RoleSettings } from "./reviewer.js";
import { flatObjects, stepJson, stepsFrom } from "./sequence.js";

/** What the planning loop plans for. */
export interface PlanningInput {
  readonly parent: EnvPackage;
  readonly sequence: readonly ScenarioSkillStep[];
  readonly direction: EvolutionDirection;
  readonly effort: EvolutionEffort;
  readonly span: EditSpan;
  /** Plan rubrics (the `## Plan` section of the rubric file). */
  readonly rubrics: readonly string[];
}

/** Settings of the planning loop. */
export interface PlanningSettings {
  /** Proposer/reviewer rounds at most (≥ 1). */
  readonly maxRounds: number;
  readonly proposer: RoleSettings;
  readonly reviewer: RoleSettings;
  /** Constrain the Proposer's reply with {@link planGrammar} (the plan's JSON, with the direction's structure) where the provider enforces grammars (config `evolution.grammar`). @default false */
  readonly grammar?: boolean;
}

/** Outcome of {@link runPlanningLoop}: the accepted plan (null when every round was rejected) and every round. */
export interface PlanningResult {
  readonly plan: EditPlan | null;
  readonly rounds: readonly PlanningRound[];
}

const PlanSchema = z.object({ summary: z.string().trim().min(1).max(4000) }).passthrough();

/** Formats a scenario–skill sequence as numbered lines. */
export function formatSequence(steps: readonly ScenarioSkillStep[]): string {
  return steps.map((step, index) => `${index + 1}. scenario: ${step.scenario} | skill: ${step.skill}`).join("\n");
}

/** A scenario–skill sequence as numbered lines of JSON steps (`1. {"scenario": "…", "skill": "…"}`), the form a plan's steps take. */
export function formatSequenceAsJson(steps: readonly ScenarioSkillStep[]): string {
  return steps.map((step, index) => `${index + 1}. ${stepJson(step)}`).join("\n");
}

/** The Proposer's prompt; `feedback` is the reviewer's last rejection, if any. */
export function proposerPrompt(input: PlanningInput, feedback: string | null): ChatMessage[] {
  return [
    {
      role: "system",
      content:
        "You are the Proposer. You plan how to evolve a text environment into a harder child environment by editing its sequence of (scenario, skill) steps. You write the plan only, no code.",
    },
    {
      role: "user",
      content: [
        `Environment: ${input.parent.manifest.title}`,
        input.parent.manifest.description,
        "",
        "Current sequence (one JSON step per line, as your reply writes them):",
        formatSequenceAsJson(input.sequence),
        "",
        directionInstruction(input.direction, input.effort, input.span),
        ...(feedback === null ? [] : ["", `The reviewer rejected your previous plan: ${feedback}`]),
        "",
        'Reply with only a JSON object: {"summary": "what changes and why it is harder", "steps": [{"scenario": "...", "skill": "..."}, ...]} where steps is the complete new sequence.',
      ].join("\n"),
    },
  ];
}

/**
 * Parses a plan reply: a JSON object with a non-empty `summary` and a
 * non-empty `steps` list of `{scenario, skill}`. A reply cut off by the token
 * limit keeps its summary string and its finished steps. Never throws.
 */
export function parsePlan(completion: string): EditPlan | null {
  const object = findJson(completion, "object");
  const parsed = PlanSchema.safeParse(object);
  if (parsed.success) {
    const steps = stepsFrom((object as Record<string, unknown>).steps);
    return steps === null ? null : { summary: parsed.data.summary, steps };
  }
  const summary = /"summary"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(completion)?.[1];
  const stepsAt = completion.search(/"steps"\s*:/);
  if (summary === undefined || stepsAt < 0) return null;
  const steps = stepsFrom(flatObjects(completion.slice(stepsAt)));
  const text = (JSON.parse(summary) as string).trim();
  return steps === null || text.length === 0 ? null : { summary: text.slice(0, 4000), steps };
}

/**
 * Mechanical checks of a plan before the reviewer sees it (gate `plan-check`),
 * the direction and effort rules a program can check, so that a small model's
 * reviewer is not asked them and the Proposer gets an exact reason:
 * - the sequence must change (`plan_unchanged`);
 * - LENGTH: more steps than the parent (`plan_not_longer`), the parent's steps
 *   before the span opening the plan and those after it closing it, unchanged
 *   (`plan_outside_span`);
 * - SCENARIO and SKILL: as many steps as the parent (`plan_wrong_length`), the
 *   kept half of every step unchanged (`plan_changed_kept`: SCENARIO keeps the
 *   skills, SKILL the scenarios), and no step outside the span changed
 *   (`plan_outside_span`; effort `max` spans the whole sequence).
 * Labels compare after {@link normalizeLabel}, punctuation ignored. Null when every check holds.
 */
export function checkPlan(plan: EditPlan, input: PlanningInput): Verdict | null {
  const loose = (label: string) => normalizeLabel(label).replace(/[^\p{L}\p{N} ]/gu, "").trim();
  const same = (a: ScenarioSkillStep | undefined, b: ScenarioSkillStep | undefined, part: keyof ScenarioSkillStep) => a !== undefined && b !== undefined && loose(a[part]) === loose(b[part]);
  const key = (steps: readonly ScenarioSkillStep[]) => steps.map((step) => `${loose(step.scenario)}|${loose(step.skill)}`).join("\n");
  if (key(plan.steps) === key(input.sequence)) {
    return reject("plan-check", "plan_unchanged", "the planned sequence equals the current one; change the steps the direction asks for");
  }
  const spanText = spanDescription(input.span);
  if (input.direction === "length") {
    if (plan.steps.length <= input.sequence.length) {
      return reject("plan-check", "plan_not_longer", `a LENGTH plan needs more than ${input.sequence.length} steps; it has ${plan.steps.length}`);
    }
    // the steps before the span open the plan unchanged, and those after it close it unchanged
    const after = input.sequence.length - input.span.end;
    const moved = input.sequence.findIndex((step, index) => {
      if (index >= input.span.start && index < input.span.end) return false;
      const planned = index < input.span.start ? plan.steps[index] : plan.steps[plan.steps.length - after + (index - input.span.end)];
      return !same(step, planned, "scenario") || !same(step, planned, "skill");
    });
    if (moved >= 0) return reject("plan-check", "plan_outside_span", `change only ${spanText} and add the new steps after it; step ${moved + 1} is outside it and must stay as it is`);
    return null;
  }
  if (plan.steps.length !== input.sequence.length) {
    return reject("plan-check", "plan_wrong_length", `a ${input.direction.toUpperCase()} plan keeps the ${input.sequence.length} steps of the sequence and edits them; it has ${plan.steps.length}`);
  }
  const kept: keyof ScenarioSkillStep = input.direction === "scenario" ? "skill" : "scenario";
  const changedKept = input.sequence.findIndex((step, index) => !same(step, plan.steps[index], kept));
  if (changedKept >= 0) {
    const step = input.sequence[changedKept] as ScenarioSkillStep;
    return reject("plan-check", "plan_changed_kept", `a ${input.direction.toUpperCase()} plan keeps every ${kept}; step ${changedKept + 1}'s ${kept} must stay "${step[kept]}"`);
  }
  const outside = input.sequence.findIndex((step, index) => (index < input.span.start || index >= input.span.end) && (!same(step, plan.steps[index], "scenario") || !same(step, plan.steps[index], "skill")));
  if (outside >= 0) return reject("plan-check", "plan_outside_span", `change only ${spanText}; step ${outside + 1} is outside it and must stay as it is`);
  return null;
}

function spanDescription(span: EditSpan): string {
  return span.end - span.start === 1 ? `step ${span.start + 1}` : `steps ${span.start + 1} to ${span.end}`;
}

/** Characters of a plan's JSON per token, counted low so the bound errs long (JSON of English labels runs 3.5–4 characters a token in Qwen's and Gemma's tokenisers). */
const PLAN_CHARS_PER_TOKEN = 3;

/**
 * New-token bound of one Proposer plan: `allowance` (config `evolution.planMaxTokens`) for what the model writes
 * itself (the summary and the changed steps) plus the parent's steps, which every plan repeats (the grammar
 * writes the kept ones in verbatim, but each still costs its tokens), at one token per
 * {@link PLAN_CHARS_PER_TOKEN} characters of their JSON. A fixed bound cut the 15-step register-machine plans of
 * Qwen2.5-Coder-1.5B inside the kept steps, so they failed as `plan_outside_span` (docs/benchmarks/evolution.md, "Evolution
 * with Qwen2.5-Coder-1.5B", `9171723`).
 * @param allowance tokens for the model's own text (≥ 1)
 * @param sequence the parent's scenario–skill steps
 * @returns tokens, `allowance` or more
 */
export function planTokenBound(allowance: number, sequence: readonly ScenarioSkillStep[]): number {
  const repeated = sequence.reduce((sum, step) => sum + stepJson(step).length + 2, 0);
  return allowance + Math.ceil(repeated / PLAN_CHARS_PER_TOKEN);
}

/**
 * Loop 1 of environment evolution, planning: the Proposer turns (environment,
 * sequence, direction, effort) into a sequence-level edit plan; the rubric
 * reviewer accepts it or rejects it with feedback, which goes back to the
 * Proposer, until a plan passes or `maxRounds` rounds are used. Unparseable
 * plans and failed mechanical checks cost a round without a review. Never
 * throws for untrusted output or model errors (they end up in the rounds).
 */
export async function runPlanningLoop(input: PlanningInput, model: LanguageModel, settings: PlanningSettings): Promise<PlanningResult> {
  const rounds: PlanningRound[] = [];
  let feedback: string | null = null;
  const proposer = { ...settings.proposer, maxTokens: planTokenBound(settings.proposer.maxTokens, input.sequence) };
  for (let round = 0; round < settings.maxRounds; round += 1) {
    let completion: string;
    try {
      const options = { ...withSeed(proposer, round), ...(settings.grammar === true ? { grammar: planGrammar(input) } : {}) };
      completion = (await model.generate(proposerPrompt(input, feedback), options)).text;
    } catch (error) {
      const code = error instanceof EnvforgeError ? error.code : "model_error";
      rounds.push({ completion: "", plan: null, review: reject("plan-review", "model_error", `${code}: ${(error as Error).message}`) });
      feedback = null;
      continue;
    }
    const plan = parsePlan(completion);
    if (plan === null) {
      const verdict = reject("plan-check", "plan_unparseable", 'the reply held no JSON object with "summary" and a non-empty "steps" list of {"scenario", "skill"}');
      rounds.push({ completion, plan: null, review: verdict });
      feedback = verdict.message;
      continue;
    }
    const problem = checkPlan(plan, input);
    if (problem !== null) {
      rounds.push({ completion, plan, review: problem });
      feedback = problem.status === "reject" ? problem.message : null;
      continue;
    }
    const subject = [
      `Parent environment: ${input.parent.manifest.title}`,
      "Parent sequence:",
      formatSequence(input.sequence),
      "",
      directionInstruction(input.direction, input.effort, input.span),
      "",
      `Plan: ${plan.summary}`,
      "Planned sequence:",
      formatSequence(plan.steps),
    ].join("\n");
    const verdict = await review(model, "plan", input.rubrics, subject, withSeed(settings.reviewer, round), { grammar: settings.grammar === true });
    rounds.push({ completion, plan, review: verdict });
    if (verdict.status === "pass") return { plan, rounds };
    feedback = verdict.message;
  }
  return { plan: null, rounds };
}

function withSeed(settings: RoleSettings, round: number): RoleSettings {
  return settings.seed === undefined ? settings : { ...settings, seed: settings.seed + round };
}
