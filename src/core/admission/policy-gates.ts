import { pass, reject, type EnvPackage, type Episode, type EnvSession, type Verdict } from "../../spec/index.js";
import { doNothingPolicy, oraclePolicy, playEpisode, type Policy } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";

async function playSeeds(
  candidate: EnvPackage,
  context: AdmissionContext,
  makePolicy: (session: EnvSession) => Policy,
): Promise<{ episodes: Episode[] } | { loadFailure: string }> {
  const opened = await context.sandbox.open({ envSource: candidate.envSource, oracleSource: candidate.oracleSource });
  if (opened.kind !== "ok") return { loadFailure: `${opened.kind}: ${opened.message}` };
  const episodes: Episode[] = [];
  try {
    for (const seed of context.seeds) {
      episodes.push(await playEpisode(opened.value, candidate.manifest, seed, makePolicy(opened.value)));
    }
  } finally {
    await opened.value.close();
  }
  return { episodes };
}

function summary(episodes: readonly Episode[]) {
  return episodes.map((episode) => ({ seed: episode.seed, return: episode.return, turns: episode.turns.length, failure: episode.failure?.message }));
}

/**
 * The oracle reaches the pass threshold on every probe seed within `maxTurns`.
 * Reason code: `oracle_failed` (with per-seed returns and failures).
 */
export function oracleGate(): AdmissionGate {
  return {
    name: "oracle",
    async check(candidate, context): Promise<Verdict> {
      const played = await playSeeds(candidate, context, (session) => oraclePolicy(session));
      if ("loadFailure" in played) return reject("oracle", "oracle_failed", `oracle.py failed to load: ${played.loadFailure}`);
      const lost = played.episodes.filter((episode) => !episode.won);
      if (lost.length > 0) {
        return reject("oracle", "oracle_failed", `the oracle missed the pass threshold on ${lost.length} of ${played.episodes.length} seeds`, {
          episodes: summary(played.episodes),
        });
      }
      return pass("oracle", { episodes: summary(played.episodes) });
    },
  };
}

/**
 * Negative control (invalid-test): a do-nothing agent stays below the pass
 * threshold on every probe seed; an environment an empty solution passes is
 * broken. Reason code: `empty_solution_passes`.
 */
export function doNothingGate(): AdmissionGate {
  return {
    name: "do-nothing",
    async check(candidate, context): Promise<Verdict> {
      const played = await playSeeds(candidate, context, () => doNothingPolicy);
      if ("loadFailure" in played) return reject("do-nothing", "load_failed", played.loadFailure);
      const won = played.episodes.filter((episode) => episode.won);
      if (won.length > 0) {
        return reject("do-nothing", "empty_solution_passes", `the empty action wins on ${won.length} of ${played.episodes.length} seeds`, {
          episodes: summary(played.episodes),
        });
      }
      return pass("do-nothing");
    },
  };
}
