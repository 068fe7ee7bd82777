import type { EnvPackage, Episode, Sandbox } from "../../spec/index.js";
import { doNothingPolicy, oraclePolicy, playEpisode, randomPolicy, seededRandom, type Policy } from "../rollout/index.js";
import { fnv1a } from "./minhash.js";
import { scriptedPolicy, seedRange, withSession } from "./probe-episodes.js";

/** The set of hashed structural features of an environment's traces under fixed agents. */
export type BehaviourFingerprint = ReadonlySet<number>;

/** Fixed seeds of the fingerprint's episodes. */
export const FINGERPRINT_SEEDS = 4;
/** Turn cap of the probe agents' fingerprint episodes (the oracle plays to the end). */
export const FINGERPRINT_TURNS = 8;

/** Fixed probe agents; the oracle plays too (see {@link behaviourFingerprint}). */
const PROBE_AGENTS: readonly ((seed: number) => Policy)[] = [
  () => doNothingPolicy,
  () => scriptedPolicy("probe", ["1", "2", "test", "a"]),
  (seed) => randomPolicy(seededRandom(104_729 + seed)),
];

/**
 * The template of an observation that the fingerprint compares: numbers
 * become `#` and names (single letters, letter–digit identifiers such as
 * `n12`, words in capitals such as `A`/`NE`) become `@`; a run of such
 * placeholders (a list, a row of a grid) becomes one `#…`/`@…`, a list of
 * like entries separated by commas or semicolons its first entry and `…`; repeated lines are kept once;
 * lower case, whitespace collapsed. So an instance's numbers, names and sizes
 * drop out and its sentence structure stays: a copy with other sizes and
 * ranges has the same templates.
 */
export function observationTemplate(text: string): string {
  const lines = text
    .split("\n")
    .map((line) =>
      line
        .replace(/[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi, "#")
        .replace(/(?<![\p{L}#])(?:\p{Lu}{1,3}|\p{L}#+)(?![\p{L}#])/gu, "@")
        .replace(/(?<![\p{L}#])\p{Ll}(?![\p{L}#])/gu, "@")
        .replace(/([#@])(?:[\s,;:|/()[\]{}<>.*_-]*\1)+/gu, "$1…")
        // a list of like entries (`@… #, @… #`, `item #: weight #, value #; item #: …`) becomes its first entry
        .replace(/([^;]{1,80}?)(?:\s*;\s*\1)+(?=\s*[;.]|\s*$)/gu, "$1…")
        .replace(/([^,;]{1,60}?)(?:\s*,\s*\1)+(?=\s*[,;.]|\s*$)/gu, "$1…")
        .toLowerCase()
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((line) => line.length > 0);
  return lines.filter((line, index) => index === 0 || line !== lines[index - 1]).join("\n");
}

/**
 * Behaviour fingerprint of an environment, over the structure of its traces
 * rather than their text: each fixed probe agent plays each fixed seed for up
 * to `FINGERPRINT_TURNS` turns and the oracle plays each seed to the end, and
 * every observation's {@link observationTemplate} is hashed into the set —
 * first observations once per agent (the task is stated there, so it weighs
 * more than the feedback lines many environments share), later ones with the
 * step's reward. Two programs that behave alike have the
 * same set whatever their code looks like (renamed, reformatted, rewritten)
 * and whatever sizes and ranges they draw their instances from: a copy whose
 * other sizes send a probe agent down another branch still shows the same
 * templates, and the oracle (the one agent that plays every size well) walks
 * the winning branch in both. A program that fails to load has the empty
 * fingerprint.
 */
export async function behaviourFingerprint(sandbox: Sandbox, candidate: EnvPackage): Promise<BehaviourFingerprint> {
  const features = new Set<number>();
  await withSession(sandbox, candidate, true, async (session) => {
    for (const seed of seedRange(FINGERPRINT_SEEDS)) {
      const plays = [
        ...PROBE_AGENTS.map((makePolicy) => ({ policy: makePolicy(seed), options: { maxTurns: FINGERPRINT_TURNS } })),
        { policy: oraclePolicy(session), options: {} },
      ];
      for (const [agent, { policy, options }] of plays.entries()) {
        const episode = await playEpisode(session, candidate.manifest, seed, policy, options);
        for (const feature of traceFeatures(agent, episode)) features.add(fnv1a(feature));
      }
    }
  });
  return features;
}

/** The structural features of one trace of agent number `agent`: the first observation's template, then each later template with its reward. */
function traceFeatures(agent: number, episode: Episode): string[] {
  return [`start|${agent}|${observationTemplate(episode.initialObservation)}`, ...episode.turns.map((turn) => `step|${observationTemplate(turn.observation)}|${turn.reward}`)];
}

/** Jaccard similarity of two fingerprints, in [0, 1]; 0 when both are empty. */
export function fingerprintSimilarity(a: BehaviourFingerprint, b: BehaviourFingerprint): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const feature of a) if (b.has(feature)) shared += 1;
  return shared / (a.size + b.size - shared);
}
