import { pass, reject, type EnvPackage, type Episode, type Verdict } from "../../spec/index.js";
import { oraclePolicy } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { episodeSummary, playSeeds, rewardRangeViolation, seedRange, withSession } from "./probe-episodes.js";

type OraclePlay = ReturnType<typeof playOracleOnce>;
const oraclePlays = new WeakMap<AdmissionContext, WeakMap<EnvPackage, OraclePlay>>();

function playOracleOnce(candidate: EnvPackage, context: AdmissionContext) {
  return withSession(context.sandbox, candidate, true, (session) =>
    playSeeds(session, candidate, seedRange(context.settings.seeds), () => oraclePolicy(session)),
  );
}

/**
 * Plays the oracle on seeds 0..n−1 in one session. Shared by the gates that
 * need the oracle's winning actions (oracle, scorer contract, hint): the
 * episodes are deterministic once the determinism gate passed, so they are
 * played once per candidate and context and reused.
 */
export function playOracle(candidate: EnvPackage, context: AdmissionContext): OraclePlay {
  let byCandidate = oraclePlays.get(context);
  if (byCandidate === undefined) {
    byCandidate = new WeakMap();
    oraclePlays.set(context, byCandidate);
  }
  let played = byCandidate.get(candidate);
  if (played === undefined) {
    played = playOracleOnce(candidate, context);
    byCandidate.set(candidate, played);
  }
  return played;
}

/**
 * Gate 4: the oracle reaches the pass threshold on every one of the seeds
 * (default 8) within `maxTurns`, every step reward and the running return inside `rewardRange`.
 * Reason codes: `load_failed` (env.py or oracle.py), `reward_out_of_range` (a
 * step of the oracle's episode paid outside the declared range, e.g. 1.5 for
 * some right answers in a [0, 1] task, or its running return left it through steps in range), `oracle_error` (the oracle or the environment failed during its
 * episode), `oracle_too_slow` (turn cap reached below the threshold),
 * `oracle_failed` (the episode ended below the threshold), `oracle_invalid_tool_call` (a tool
 * environment's oracle made a call its tool's schema refuses); per-seed returns in the evidence.
 */
export function oracleGate(): AdmissionGate {
  return { name: "oracle", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const played = await playOracle(candidate, context);
  if (played.kind !== "ok") return reject("oracle", "load_failed", `env.py or oracle.py failed to load: ${played.message}`, { kind: played.kind, detail: played.detail });
  const episodes = played.value;
  const evidence = { episodes: episodeSummary(episodes) };
  const outOfRange = rewardRangeViolation("oracle", episodes, candidate);
  if (outOfRange !== null) return outOfRange;
  const failed = episodes.find((episode) => episode.failure !== undefined);
  if (failed?.failure) return reject("oracle", "oracle_error", `seed ${failed.seed}: ${failed.failure.kind}: ${failed.failure.message}`, evidence);
  // a refused call is an invalid action the episode survives: name it before its consequence (a lost or slow episode)
  for (const episode of episodes) {
    const refused = episode.turns.find((turn) => turn.toolError !== undefined);
    if (refused !== undefined) return reject("oracle", "oracle_invalid_tool_call", `seed ${episode.seed}: the oracle's call was refused (${refused.toolError}): ${refused.observation.slice(0, 300)}`, evidence);
  }
  const lost = episodes.filter((episode) => !episode.won);
  if (lost.length > 0) {
    const slow = lost.filter((episode) => !episode.terminated && episode.turns.length >= candidate.manifest.maxTurns);
    const reason = slow.length > 0 ? "oracle_too_slow" : "oracle_failed";
    const why = slow.length > 0 ? `ran out of maxTurns = ${candidate.manifest.maxTurns}` : "ended below the pass threshold";
    return reject("oracle", reason, `the oracle missed the pass threshold on ${lost.length} of ${episodes.length} seeds (${why})`, evidence);
  }
  return pass("oracle", evidence);
}

/** The oracle's last action of each won episode (the answer that earned the reward). */
export function winningActions(episodes: readonly Episode[]): { seed: number; actions: string[]; answer: string }[] {
  return episodes
    .filter((episode) => episode.won && episode.turns.length > 0)
    .map((episode) => ({ seed: episode.seed, actions: episode.turns.map((turn) => turn.action), answer: episode.turns.at(-1)?.action ?? "" }));
}
