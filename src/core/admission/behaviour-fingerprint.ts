import type { EnvPackage, Sandbox } from "../../spec/index.js";
import { doNothingPolicy, playEpisode, randomPolicy, seededRandom, type Policy } from "../rollout/index.js";
import { fnv1a } from "./minhash.js";
import { scriptedPolicy, seedRange, withSession } from "./probe-episodes.js";

/** The set of hashed transition features of an environment under the fixed probe agents. */
export type BehaviourFingerprint = ReadonlySet<number>;

/** Fixed seeds of the fingerprint's episodes. */
export const FINGERPRINT_SEEDS = 4;
/** Turn cap of the fingerprint's episodes. */
export const FINGERPRINT_TURNS = 8;

/** Fixed probe agents (oracles are left out: two oracles of one environment may differ). */
const PROBE_AGENTS: readonly ((seed: number) => Policy)[] = [
  () => doNothingPolicy,
  () => scriptedPolicy("probe", ["1", "2", "test", "a"]),
  (seed) => randomPolicy(seededRandom(104_729 + seed)),
];

/** Observation text compared by the fingerprint: lower case, whitespace collapsed. */
function normaliseObservation(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * Behaviour fingerprint of an environment: each fixed probe agent plays each
 * fixed seed for up to `FINGERPRINT_TURNS` turns, and every prefix of the
 * trace — (agent, seed, first observation, then each normalised observation
 * and reward) — is hashed into the set. Two programs that behave alike have the same set
 * whatever their code looks like (renamed, reformatted or rewritten). A
 * program that fails to load has the empty fingerprint.
 */
export async function behaviourFingerprint(sandbox: Sandbox, candidate: EnvPackage): Promise<BehaviourFingerprint> {
  const features = new Set<number>();
  await withSession(sandbox, candidate, false, async (session) => {
    for (const [agent, makePolicy] of PROBE_AGENTS.entries()) {
      for (const seed of seedRange(FINGERPRINT_SEEDS)) {
        const episode = await playEpisode(session, candidate.manifest, seed, makePolicy(seed), { maxTurns: FINGERPRINT_TURNS });
        // each feature chains the one before, so a transition is identified by its whole history
        let feature = fnv1a(`${agent}|${seed}|${normaliseObservation(episode.initialObservation)}`);
        features.add(feature);
        for (const step of episode.turns) {
          feature = fnv1a(`${feature}|${normaliseObservation(step.observation)}|${step.reward}`);
          features.add(feature);
        }
        if (episode.failure !== undefined) return;
      }
    }
  });
  return features;
}

/** Jaccard similarity of two fingerprints, in [0, 1]; 0 when both are empty. */
export function fingerprintSimilarity(a: BehaviourFingerprint, b: BehaviourFingerprint): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const feature of a) if (b.has(feature)) shared += 1;
  return shared / (a.size + b.size - shared);
}
