import type { CorpusDocument, DifficultyBreakdown, ScenarioSkillStep } from "../../spec/index.js";

/**
 * Reference distributions over scenarios σ and skills κ given a scenario, the
 * `p(σ)` and `p(κ | σ)` of the off-policy difficulty. Probabilities lie in
 * (0, 1]; unseen labels get a small positive probability.
 */
export interface ReferenceDistribution {
  /** p(σ). */
  scenarioProbability(scenario: string): number;
  /** p(κ | σ). */
  skillProbability(skill: string, scenario: string): number;
}

/** Options of {@link frequencyReference}. */
export interface FrequencyReferenceOptions {
  /** Additive (Laplace) smoothing constant α > 0. @default 1 */
  readonly smoothing?: number;
}

/**
 * Lower-case, trimmed, inner whitespace collapsed: the form labels are counted
 * and looked up in, so `Graph  Search` and `graph search` are one skill.
 */
export function normalizeLabel(label: string): string {
  return label.trim().toLowerCase().replace(/\s+/g, " ");
}

/**
 * Smoothed reference frequencies over the pool's scenario–skill sequences and
 * the corpus (environment evolution, off-policy: difficulty from reference
 * distributions, no rollouts of the target model).
 *
 * Counts: every pool step adds 1 to c(σ) and to c(σ, κ); every corpus document
 * that mentions a known label adds 1 to c(σ) (and to c(σ, κ) when it mentions
 * both). A document mentions a label when it contains each of the label's
 * words of three or more letters (case-insensitive); labels without such words
 * are never mentioned. With α the smoothing constant, V_σ the number of
 * distinct scenarios and V_κ the number of distinct skills:
 *
 * - `p(σ) = (c(σ) + α) / (Σ_σ' c(σ') + α · (V_σ + 1))`
 * - `p(κ | σ) = (c(σ, κ) + α) / (Σ_κ' c(σ, κ') + α · (V_κ + 1))`
 *
 * The `+ 1` in each denominator reserves mass for one unseen label, so an
 * unseen scenario or skill gets probability `α / denominator` and the known
 * labels' probabilities sum to less than 1.
 *
 * @param pool scenario–skill sequences of the environments in the pool
 * @param corpus grounding documents (may be empty)
 * @throws RangeError when `smoothing` is not a positive finite number
 */
export function frequencyReference(
  pool: readonly (readonly ScenarioSkillStep[])[],
  corpus: readonly CorpusDocument[],
  options: FrequencyReferenceOptions = {},
): ReferenceDistribution {
  const alpha = options.smoothing ?? 1;
  if (!(alpha > 0) || !Number.isFinite(alpha)) throw new RangeError(`smoothing must be a positive number, got ${alpha}`);
  const scenarioCounts = new Map<string, number>();
  const jointCounts = new Map<string, Map<string, number>>();
  const skills = new Set<string>();
  const addJoint = (scenario: string, skill: string) => {
    const inner = jointCounts.get(scenario) ?? new Map<string, number>();
    inner.set(skill, (inner.get(skill) ?? 0) + 1);
    jointCounts.set(scenario, inner);
  };
  for (const sequence of pool) {
    for (const step of sequence) {
      const scenario = normalizeLabel(step.scenario);
      const skill = normalizeLabel(step.skill);
      scenarioCounts.set(scenario, (scenarioCounts.get(scenario) ?? 0) + 1);
      skills.add(skill);
      addJoint(scenario, skill);
    }
  }
  const knownScenarios = [...scenarioCounts.keys()];
  const knownSkills = [...skills];
  for (const document of corpus) {
    const text = document.text.toLowerCase();
    const scenariosMentioned = knownScenarios.filter((scenario) => mentions(text, scenario));
    const skillsMentioned = knownSkills.filter((skill) => mentions(text, skill));
    for (const scenario of scenariosMentioned) {
      scenarioCounts.set(scenario, (scenarioCounts.get(scenario) ?? 0) + 1);
      for (const skill of skillsMentioned) addJoint(scenario, skill);
    }
  }
  const scenarioTotal = [...scenarioCounts.values()].reduce((sum, count) => sum + count, 0);
  const scenarioDenominator = scenarioTotal + alpha * (scenarioCounts.size + 1);
  const skillVocabulary = skills.size;
  return {
    scenarioProbability(scenario) {
      return ((scenarioCounts.get(normalizeLabel(scenario)) ?? 0) + alpha) / scenarioDenominator;
    },
    skillProbability(skill, scenario) {
      const inner = jointCounts.get(normalizeLabel(scenario));
      const given = inner === undefined ? 0 : [...inner.values()].reduce((sum, count) => sum + count, 0);
      return ((inner?.get(normalizeLabel(skill)) ?? 0) + alpha) / (given + alpha * (skillVocabulary + 1));
    },
  };
}

/**
 * A reference distribution from a table of probabilities (e.g. the ones a
 * model was asked for); labels not in the table get `fallback`.
 *
 * @param scenarios p(σ) by normalised scenario
 * @param skills p(κ | σ) keyed by `normalised scenario \u0000 normalised skill`
 * @param fallback probability of a label missing from the table, in (0, 1]
 */
export function tableReference(scenarios: ReadonlyMap<string, number>, skills: ReadonlyMap<string, number>, fallback: number): ReferenceDistribution {
  const clamp = (value: number | undefined) => (value === undefined || !(value > 0) ? fallback : Math.min(1, value));
  return {
    scenarioProbability: (scenario) => clamp(scenarios.get(normalizeLabel(scenario))),
    skillProbability: (skill, scenario) => clamp(skills.get(skillKey(scenario, skill))),
  };
}

/** Key of p(κ | σ) in {@link tableReference}'s skill table. */
export function skillKey(scenario: string, skill: string): string {
  return `${normalizeLabel(scenario)}\u0000${normalizeLabel(skill)}`;
}

/**
 * Off-policy difficulty of an environment from its scenario–skill sequence
 * (design map, sources: "Environment evolution (off-policy)", difficulty
 * metric = length + scenario novelty + skill rarity):
 *
 * `D = L + Σ_i −log p(σ_i) + Σ_i −log p(κ_i | σ_i)`
 *
 * with L the number of steps and natural logarithms. No rollout of any model is
 * needed, so the value is a property of the environment, not of a policy.
 *
 * @param steps the environment's (scenario, skill) steps, in order
 * @param reference p(σ) and p(κ | σ)
 * @returns D and its three terms; an empty sequence has D = 0
 * @throws RangeError when the reference returns a probability outside (0, 1]
 */
export function offPolicyDifficulty(steps: readonly ScenarioSkillStep[], reference: ReferenceDistribution): DifficultyBreakdown {
  let scenarioSurprise = 0;
  let skillSurprise = 0;
  for (const step of steps) {
    scenarioSurprise += surprise(reference.scenarioProbability(step.scenario), `p(σ = ${step.scenario})`);
    skillSurprise += surprise(reference.skillProbability(step.skill, step.scenario), `p(κ = ${step.skill} | σ = ${step.scenario})`);
  }
  return { length: steps.length, scenarioSurprise, skillSurprise, total: steps.length + scenarioSurprise + skillSurprise };
}

function surprise(probability: number, what: string): number {
  if (!(probability > 0 && probability <= 1)) throw new RangeError(`${what} = ${probability} lies outside (0, 1]`);
  return -Math.log(probability);
}

function mentions(text: string, label: string): boolean {
  const words = label.split(/[^a-z0-9]+/).filter((word) => word.length >= 3);
  return words.length > 0 && words.every((word) => text.includes(word));
}
