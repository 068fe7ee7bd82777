import { type ChatMessage, type LanguageModel, type ScenarioSkillStep } from "../../spec/index.js";
import { normalizeLabel, skillKey, type ReferenceDistribution } from "./difficulty.js";
import type { RoleSettings } from "./reviewer.js";

/**
 * Reads a probability from a model reply: the first number in the text, as a
 * fraction (`0.05`) or a percentage (`5%`); null unless it lies in (0, 1].
 */
export function parseProbability(text: string): number | null {
  const match = /(\d+(?:\.\d+)?|\.\d+)\s*(%?)/.exec(text);
  if (match === null) return null;
  const value = Number(match[1]) / (match[2] === "%" ? 100 : 1);
  return value > 0 && value <= 1 ? value : null;
}

function question(text: string): ChatMessage[] {
  return [
    { role: "system", content: "You are the Estimator. You estimate how common things are among text-based training tasks for AI agents. Reply with one probability between 0 and 1 and nothing else." },
    { role: "user", content: text },
  ];
}

/**
 * The "ask the model" option of the difficulty's reference distributions
 * (config `evolution.reference: "model"`): for the labels of `steps`, the
 * model is asked for p(σ) ("how common is this scenario") and p(κ | σ) ("how
 * common is this skill in this scenario"), once per distinct label or pair.
 * A reply without a probability in (0, 1], or a model error, falls back to
 * `fallback` (the smoothed frequencies) for that label. Never throws.
 */
export async function modelReference(model: LanguageModel, steps: readonly ScenarioSkillStep[], fallback: ReferenceDistribution, settings: RoleSettings): Promise<ReferenceDistribution> {
  const ask = async (text: string): Promise<number | null> => {
    try {
      return parseProbability((await model.generate(question(text), settings)).text);
    } catch {
      // a model error leaves the label to the fallback
      return null;
    }
  };
  const scenarios = new Map<string, number | null>();
  const skills = new Map<string, number | null>();
  for (const step of steps) {
    const scenario = normalizeLabel(step.scenario);
    if (!scenarios.has(scenario)) scenarios.set(scenario, await ask(`How common is the scenario "${step.scenario}"?`));
    const key = skillKey(step.scenario, step.skill);
    if (!skills.has(key)) skills.set(key, await ask(`In the scenario "${step.scenario}", how common is it that the agent needs the skill "${step.skill}"?`));
  }
  return {
    scenarioProbability: (scenario) => scenarios.get(normalizeLabel(scenario)) ?? fallback.scenarioProbability(scenario),
    skillProbability: (skill, scenario) => skills.get(skillKey(scenario, skill)) ?? fallback.skillProbability(skill, scenario),
  };
}
