import { z } from "zod";
import type { ChatMessage, EnvPackage, LanguageModel, ScenarioSkillSequence, ScenarioSkillStep } from "../../spec/index.js";
import { findJson } from "./completion-json.js";

/** Longest sequence kept, steps. */
export const MAX_SEQUENCE_STEPS = 32;
/** Longest scenario or skill label kept, characters. */
export const MAX_LABEL_CHARS = 80;

/** One scenario–skill step as the JSON object plans write (`{"scenario": "…", "skill": "…"}`, no spaces, only those two keys). */
export function stepJson(step: ScenarioSkillStep): string {
  return JSON.stringify({ scenario: step.scenario, skill: step.skill });
}

/** A label without the `scenario:` / `skill:` prefix a model copies from a listing (`1. scenario: … | skill: …`). */
const withoutLabelPrefix = (label: string) => label.replace(/^\s*(?:scenario|skill)\s*:\s*/i, "");

const StepSchema = z
  .object({ scenario: z.string().transform(withoutLabelPrefix).pipe(z.string().trim().min(1)), skill: z.string().transform(withoutLabelPrefix).pipe(z.string().trim().min(1)) })
  .passthrough();

/**
 * Parses a list of `{ "scenario": ..., "skill": ... }` objects from a model
 * completion (a fenced or bare JSON array, or an object with a `steps` array;
 * failing those, every complete flat object in the text, so a list cut off by
 * the token limit keeps its finished steps).
 * Entries that are not such objects are skipped; a label's leading
 * `scenario:` or `skill:` (copied from a listing) is dropped; labels are cut to
 * {@link MAX_LABEL_CHARS} and the list to {@link MAX_SEQUENCE_STEPS}.
 *
 * @returns the steps, or null when no usable step was found
 */
export function parseScenarioSkillSteps(completion: string): ScenarioSkillStep[] | null {
  let value = findJson(completion, "array");
  if (value === undefined) {
    const object = findJson(completion, "object") as Record<string, unknown> | undefined;
    value = object?.steps ?? object?.sequence;
  }
  return stepsFrom(value) ?? stepsFrom(flatObjects(completion));
}

/**
 * Every flat `{ ... }` span of the text (no nested braces) that parses as a
 * JSON object: what is left of a list cut off by the token limit
 * (`[{...}, {...}, {"scen`).
 */
export function flatObjects(text: string): unknown[] {
  const objects: unknown[] = [];
  for (const match of text.matchAll(/\{[^{}]*\}/g)) {
    try {
      objects.push(JSON.parse(match[0]));
    } catch {
      // not JSON; skip
    }
  }
  return objects;
}

/** Steps from an untrusted JSON value (see {@link parseScenarioSkillSteps}); null when none is usable. */
export function stepsFrom(value: unknown): ScenarioSkillStep[] | null {
  if (!Array.isArray(value)) return null;
  const steps: ScenarioSkillStep[] = [];
  for (const entry of value) {
    const parsed = StepSchema.safeParse(entry);
    if (!parsed.success) continue;
    steps.push({ scenario: parsed.data.scenario.slice(0, MAX_LABEL_CHARS), skill: parsed.data.skill.slice(0, MAX_LABEL_CHARS) });
    if (steps.length === MAX_SEQUENCE_STEPS) break;
  }
  return steps.length > 0 ? steps : null;
}

/** The fallback sequence: one step per manifest skill, each in the manifest's scenario. */
export function manifestSequence(pkg: EnvPackage): ScenarioSkillSequence {
  const { scenario, skills } = pkg.manifest;
  return { steps: skills.map((skill) => ({ scenario, skill })), source: "manifest" };
}

/** Options of {@link extractSequence}. */
export interface ExtractSequenceOptions {
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed?: number;
  /** Characters of `env.py` shown. @default 5000 */
  readonly maxSourceChars?: number;
}

/** The prompt of the sequence extractor. */
export function sequencePrompt(pkg: EnvPackage, trace: string, maxSourceChars = 5000): ChatMessage[] {
  const source = pkg.envSource.length > maxSourceChars ? `${pkg.envSource.slice(0, maxSourceChars)}\n# … (cut)` : pkg.envSource;
  return [
    {
      role: "system",
      content:
        "You are the Analyst. You describe how an agent solves a text environment as an ordered sequence of steps. " +
        "Each step is a scenario (the situation the agent faces, a short noun phrase) and a skill (what it must do there, a short verb phrase).",
    },
    {
      role: "user",
      content: [
        `Environment: ${pkg.manifest.title}`,
        pkg.manifest.description,
        "",
        "env.py:",
        "```python",
        source,
        "```",
        "",
        "A run of the reference solution:",
        trace,
        "",
        'Reply with only a JSON array, e.g. [{"scenario": "reading the map", "skill": "parse a grid"}, {"scenario": "blocked corridor", "skill": "plan a detour"}].',
      ].join("\n"),
    },
  ];
}

/**
 * Extracts an environment's scenario–skill execution sequence with the
 * language model, from the code and an oracle trace (environment evolution:
 * the sequence the difficulty and the edit plans work on). A model error or a
 * reply without usable steps falls back to {@link manifestSequence}; never
 * throws for untrusted output.
 *
 * @param trace text of an oracle episode (see `oracleTrace`)
 */
export async function extractSequence(pkg: EnvPackage, trace: string, model: LanguageModel, options: ExtractSequenceOptions): Promise<ScenarioSkillSequence> {
  try {
    const generation = await model.generate(sequencePrompt(pkg, trace, options.maxSourceChars), {
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    });
    const steps = parseScenarioSkillSteps(generation.text);
    if (steps !== null) return { steps, source: "model" };
  } catch {
    // a model failure falls back to the manifest, like an unusable reply
  }
  return manifestSequence(pkg);
}
