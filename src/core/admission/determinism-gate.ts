import { pass, reject, type EnvPackage, type EnvSession, type Episode, type Verdict } from "../../spec/index.js";
import { playEpisode } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle } from "./oracle-gate.js";
import { scriptedPolicy, seedRange, spreadSeeds, withSession } from "./probe-episodes.js";
import { HISTORY_WARM_UPS, reusedInstanceSource, type WarmUp } from "./reused-instance.js";
import { recordTranscript, transcriptActions } from "./transcript.js";

/**
 * Gate 3: the same seed and actions replayed give identical transcripts —
 * twice in one session and once in a fresh process (catches clocks, OS
 * randomness, object addresses) — and so does the oracle's own episode (its
 * actions replayed in a fresh process give the same observations and rewards:
 * catches a clock that matters only on the winning path); `reset(seed)` on an
 * instance that already played an episode gives the transcript of a fresh
 * instance ({@link reusedInstanceSource}: catches class, module and instance
 * state carried across resets, which fork-per-episode hides but the
 * environment server and outside trainers see); and different seeds give
 * different instances: at least half of seeds 0..n−1 and at least half of n
 * seeds spread over the range training draws from ({@link spreadSeeds}, large
 * seeds included) must give distinct transcripts. Reason codes:
 * `nondeterministic` (evidence: seed, which replay, first differing entry),
 * `history_dependent` (evidence: seed, warm-up seeds, first differing entry),
 * `seeds_identical` (evidence: which seed set), `load_failed`, `reset_failed` /
 * `step_failed` (a probe seed's episode fails in the sandbox), `reward_out_of_range`
 * (a probe step pays outside `rewardRange`).
 */
export function determinismGate(): AdmissionGate {
  return { name: "deterministic", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(context.settings.seeds);
  const spread = spreadSeeds(context.settings.seeds);
  const maxTurns = candidate.manifest.maxTurns;
  const record = async (session: EnvSession, which: readonly number[]) => {
    const transcripts: string[][] = [];
    for (const seed of which) transcripts.push(await recordTranscript(session, seed, maxTurns));
    return transcripts;
  };
  const first = await withSession(context.sandbox, candidate, false, async (session) => [await record(session, seeds), await record(session, seeds), await record(session, spread)] as const);
  if (first.kind !== "ok") return reject("deterministic", "load_failed", `env.py failed to load: ${first.message}`, { kind: first.kind });
  const [original, sameSession, spreadTranscripts] = first.value;
  // a seed whose episode fails (e.g. reset hangs on seed 5 only) fails the same way every time; that is
  // a broken environment, not a deterministic one, and must not be blamed on the oracle later
  const failure = environmentFailure(seeds, original) ?? environmentFailure(spread, spreadTranscripts);
  if (failure !== null) return failure;
  // the oracle's episodes are shared with the oracle, scorer-contract and hint gates; a failed oracle is theirs to report
  const oracle = await playOracle(candidate, context);
  const oracleEpisodes = oracle.kind === "ok" ? oracle.value.filter((episode) => episode.failure === undefined && episode.turns.length > 0) : [];
  const fresh = await withSession(context.sandbox, candidate, false, async (session) => {
    const transcripts = await record(session, seeds);
    const replays: Episode[] = [];
    for (const episode of oracleEpisodes) replays.push(await replay(session, candidate, episode));
    return { transcripts, replays };
  });
  if (fresh.kind !== "ok") return reject("deterministic", "load_failed", `env.py failed to load: ${fresh.message}`, { kind: fresh.kind });
  for (const [replayed, label] of [[sameSession, "same session"], [fresh.value.transcripts, "fresh process"]] as const) {
    const difference = firstTranscriptDifference(seeds, original, replayed);
    if (difference !== null) {
      return reject("deterministic", "nondeterministic", `seed ${difference.seed} replayed (${label}) differs from its first run at entry ${difference.entry}`, { ...difference, replay: label });
    }
  }
  for (const [index, episode] of oracleEpisodes.entries()) {
    const difference = firstTranscriptDifference([episode.seed], [episodeEntries(episode)], [episodeEntries(fresh.value.replays[index])]);
    if (difference !== null) {
      return reject("deterministic", "nondeterministic", `the oracle's episode on seed ${episode.seed}, its actions replayed in a fresh process, differs at entry ${difference.entry}`, {
        ...difference,
        replay: "oracle actions, fresh process",
      });
    }
  }
  const history = await historyDifference(candidate, context, seeds, original, oracleEpisodes);
  if (history !== null) return history;
  for (const [which, transcripts, label] of [[seeds, original, `seeds 0..${seeds.length - 1}`], [spread, spreadTranscripts, `seeds spread up to ${spread.at(-1)}`]] as const) {
    const distinct = new Set(transcripts.map((transcript) => transcript.join("\n"))).size;
    if (distinct * 2 < which.length) {
      return reject("deterministic", "seeds_identical", `only ${distinct} of ${which.length} ${label} give distinct instances (at least half must differ)`, { distinct, seeds: which });
    }
  }
  return pass("deterministic", { seeds: seeds.length, spreadSeeds: spread, oracleReplays: oracleEpisodes.length });
}

/** The oracle episode's actions sent again from `reset(episode.seed)`. */
function replay(session: EnvSession, candidate: EnvPackage, episode: Episode): Promise<Episode> {
  const actions = episode.turns.map((turn) => turn.action);
  return playEpisode(session, candidate.manifest, episode.seed, scriptedPolicy("oracle-replay", actions), { maxTurns: actions.length });
}

/** An episode as transcript entries: the first observation, then each turn's observation and reward, then how it ended. */
function episodeEntries(episode: Episode | undefined): string[] {
  if (episode === undefined) return [];
  return [
    JSON.stringify({ reset: episode.initialObservation }),
    ...episode.turns.map((turn) => JSON.stringify({ action: turn.action, observation: turn.observation, reward: turn.reward })),
    JSON.stringify({ terminated: episode.terminated, truncated: episode.truncated, failure: episode.failure?.kind ?? null }),
  ];
}

/**
 * The `history_dependent` reject when a seed's transcript on a reused
 * instance (after {@link HISTORY_WARM_UPS} warm-up episodes of the next seeds:
 * the oracle's actions where known, else the transcript probe's) differs from the fresh one.
 */
async function historyDifference(
  candidate: EnvPackage,
  context: AdmissionContext,
  seeds: readonly number[],
  original: readonly (readonly string[])[],
  oracleEpisodes: readonly Episode[],
): Promise<Verdict | null> {
  const oracleActions = new Map(oracleEpisodes.map((episode) => [episode.seed, episode.turns.map((turn) => turn.action)]));
  const warmUps = new Map<number, WarmUp[]>();
  for (const [index, seed] of seeds.entries()) {
    // the next seeds in turn: the probed episode is the instance's (HISTORY_WARM_UPS + 1)th
    const warmSeeds = Array.from({ length: HISTORY_WARM_UPS }, (_, step) => seeds[(index + 1 + step) % seeds.length] ?? seed);
    warmUps.set(seed, warmSeeds.map((warmSeed) => ({ seed: warmSeed, actions: oracleActions.get(warmSeed) ?? transcriptActions(warmSeed).slice(0, candidate.manifest.maxTurns) })));
  }
  const envSource = reusedInstanceSource(candidate.envSource, warmUps);
  const reused = await withSession(
    context.sandbox,
    candidate,
    false,
    async (session) => {
      const transcripts: string[][] = [];
      for (const seed of seeds) transcripts.push(await recordTranscript(session, seed, candidate.manifest.maxTurns));
      return transcripts;
    },
    { envSource },
  );
  if (reused.kind !== "ok") return reject("deterministic", "load_failed", `env.py with the history probe appended failed to load: ${reused.message}`, { kind: reused.kind });
  const difference = firstTranscriptDifference(seeds, original, reused.value);
  if (difference === null) return null;
  // the warm-up episodes run inside the probed reset call, under one call timeout: a slow environment that
  // times out there has not shown state carried across resets, so the probe says nothing about that seed
  if (difference.entry === 0 && difference.replayed.startsWith("reset failed: timeout")) return null;
  const warmUp = warmUps.get(difference.seed);
  return reject(
    "deterministic",
    "history_dependent",
    `reset(${difference.seed}) on an instance that already played seeds ${(warmUp ?? []).map((episode) => episode.seed).join(", ")} differs from a fresh instance at entry ${difference.entry} (state carried across resets)`,
    { ...difference, warmUpSeeds: (warmUp ?? []).map((episode) => episode.seed), warmUpActions: (warmUp ?? []).map((episode) => episode.actions.slice(0, 20).map((action) => action.slice(0, 100))) },
  );
}

/** The first seed whose transcripts differ, with the first differing entry of each, or null when all agree. */
function firstTranscriptDifference(
  seeds: readonly number[],
  expected: readonly (readonly string[])[],
  actual: readonly (readonly string[])[],
): { seed: number; entry: number; first: string; replayed: string } | null {
  for (const [index, seed] of seeds.entries()) {
    const a = expected[index] ?? [];
    const b = actual[index] ?? [];
    for (let entry = 0; entry < Math.max(a.length, b.length); entry += 1) {
      if (a[entry] !== b[entry]) {
        return { seed, entry, first: (a[entry] ?? "(missing)").slice(0, 500), replayed: (b[entry] ?? "(missing)").slice(0, 500) };
      }
    }
  }
  return null;
}

function environmentFailure(seeds: readonly number[], transcripts: readonly (readonly string[])[]): Verdict | null {
  for (const [index, seed] of seeds.entries()) {
    const last = transcripts[index]?.at(-1) ?? "";
    if (last.startsWith("reset failed: ")) {
      return reject("deterministic", "reset_failed", `reset(${seed}) failed: ${last.slice("reset failed: ".length).slice(0, 500)}`, { seed });
    }
    if (last.startsWith("step failed: reward_out_of_range: ")) {
      return reject("deterministic", "reward_out_of_range", `a probe step on seed ${seed} paid outside rewardRange: ${last.slice("step failed: reward_out_of_range: ".length).slice(0, 500)}`, { seed });
    }
    if (last.startsWith("step failed: ")) {
      return reject("deterministic", "step_failed", `a probe step on seed ${seed} failed: ${last.slice("step failed: ".length).slice(0, 500)}`, { seed });
    }
  }
  return null;
}
