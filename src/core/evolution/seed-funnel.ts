import { packageId, type EnvPackage, type LanguageModel, type Sandbox } from "../../spec/index.js";
import { playSolverRollouts, type RolloutSettings } from "../selfplay/index.js";

/** Thresholds of the seed funnel. */
export interface SeedFunnelSettings {
  /** Highest Solver pass rate a kept seed may have (4/8 in the source). @default 0.5 */
  readonly maxPassRate: number;
  /** Lowest mean turns per rollout a kept seed must have (30 in the source; lower it for single-turn tasks). @default 30 */
  readonly minMeanTurns: number;
}

/** A candidate seed's Solver probe: rollouts, wins and mean turns. */
export interface SeedProbe {
  readonly seedId: string;
  readonly name: string;
  readonly rollouts: number;
  readonly wins: number;
  readonly meanTurns: number;
}

/** A funnel decision for one candidate. */
export interface FunnelDecision {
  readonly probe: SeedProbe;
  readonly kept: boolean;
  /** Why a candidate was dropped: `solved_too_often`, `too_short`, or null when kept. */
  readonly reason: "solved_too_often" | "too_short" | null;
}

/**
 * The seed funnel of environment evolution: keep candidates the Solver does
 * not already master (pass rate ≤ `maxPassRate`, 4/8 in the source) and that
 * are long enough to extend (mean turns ≥ `minMeanTurns`, 30 in the source).
 * Pure; a candidate failing both is reported as `solved_too_often`.
 */
export function funnelSeeds(probes: readonly SeedProbe[], settings: SeedFunnelSettings): FunnelDecision[] {
  return probes.map((probe) => {
    const passRate = probe.rollouts === 0 ? 0 : probe.wins / probe.rollouts;
    if (passRate > settings.maxPassRate + 1e-12) return { probe, kept: false, reason: "solved_too_often" };
    if (probe.meanTurns < settings.minMeanTurns) return { probe, kept: false, reason: "too_short" };
    return { probe, kept: true, reason: null };
  });
}

/** Probes a candidate seed with Solver rollouts (no hint) for {@link funnelSeeds}. */
export async function probeSeed(pkg: EnvPackage, model: LanguageModel, sandbox: Sandbox, settings: RolloutSettings, seedBase: string): Promise<SeedProbe> {
  const episodes = await playSolverRollouts(pkg, model, sandbox, settings, seedBase);
  const turns = episodes.reduce((total, episode) => total + episode.turns.length, 0);
  return {
    seedId: packageId(pkg),
    name: pkg.manifest.name,
    rollouts: episodes.length,
    wins: episodes.filter((episode) => episode.won).length,
    meanTurns: episodes.length === 0 ? 0 : turns / episodes.length,
  };
}
