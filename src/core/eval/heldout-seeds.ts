import { deriveSeed } from "../selfplay/sampling.js";

/**
 * Episode seeds below this bound are training's: every training episode seed (Solver phase,
 * calibration, rollouts of evolution and the frontier) is a sha256-derived value `% 1_000_000`.
 */
export const TRAINING_SEED_LIMIT = 1_000_000;

/**
 * `count` held-out episode seeds of an environment: `TRAINING_SEED_LIMIT + (sha256 of
 * evalSeed/heldout/environmentId/i) mod 10⁹`, so they are never seeds training played, and the
 * same arguments give the same seeds (distinct within the list).
 */
export function heldOutSeeds(environmentId: string, count: number, evalSeed: number): number[] {
  const seeds: number[] = [];
  const taken = new Set<number>();
  for (let attempt = 0; seeds.length < count; attempt += 1) {
    const seed = TRAINING_SEED_LIMIT + (deriveSeed(evalSeed, "heldout", environmentId, attempt) % 1_000_000_000);
    if (taken.has(seed)) continue;
    taken.add(seed);
    seeds.push(seed);
  }
  return seeds;
}
