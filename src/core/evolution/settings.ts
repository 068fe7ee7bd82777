import type { Config } from "../../config/index.js";
import { buildGates, type AdmissionGate, type AdmissionSettings } from "../admission/index.js";
import type { EvolutionSettings } from "./lineage-runner.js";

/**
 * {@link EvolutionSettings} from a validated config: `evolution.*` for the
 * loops, the `admission` block for the admission gates, `seed` as the
 * master seed.
 */
export function evolutionSettingsFromConfig(config: Config): EvolutionSettings {
  const evolution = config.evolution;
  const role = (maxTokens: number) => ({ maxTokens, temperature: evolution.temperature });
  return {
    generations: evolution.generations,
    direction: evolution.direction,
    effort: evolution.effort,
    attemptsPerGeneration: evolution.attemptsPerGeneration,
    parallelSeeds: evolution.parallelSeeds,
    planning: { maxRounds: evolution.planningRounds, proposer: role(evolution.planMaxTokens), reviewer: role(evolution.reviewMaxTokens) },
    modification: { maxRounds: evolution.modificationRounds, modifier: role(evolution.modifierMaxTokens) },
    reviewer: role(evolution.reviewMaxTokens),
    sequence: role(evolution.sequenceMaxTokens),
    validationSeeds: Array.from({ length: evolution.validationSeeds }, (_, seed) => seed),
    admission: config.admission,
    smoothing: evolution.smoothing,
    reference: evolution.reference,
    seed: config.seed,
  };
}

/**
 * The admission pipeline of evolved children: the configured gates
 * (`admission.gates` minus `admission.skip`, cheapest first) without
 * `calibration`, which needs Solver rollouts and evolution is off-policy.
 */
export function evolutionGates(admission: Pick<AdmissionSettings, "gates" | "skip">): AdmissionGate[] {
  return buildGates(admission).filter((gate) => gate.name !== "calibration");
}
