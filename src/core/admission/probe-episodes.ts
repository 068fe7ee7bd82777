import type { EnvPackage, EnvSession, Episode, SandboxOutcome, Sandbox } from "../../spec/index.js";
import { playEpisode, type Policy } from "../rollout/index.js";

/**
 * Opens a session of `candidate` (with its oracle when `withOracle`), runs
 * `use` on it and closes it. A load that times out is tried once more (on a
 * loaded machine a start can be slow); a load failure is returned as the
 * outcome, never thrown.
 */
export async function withSession<T>(
  sandbox: Sandbox,
  candidate: EnvPackage,
  withOracle: boolean,
  use: (session: EnvSession) => Promise<T>,
): Promise<SandboxOutcome<T>> {
  const program = { envSource: candidate.envSource, oracleSource: withOracle ? candidate.oracleSource : null };
  let opened = await sandbox.open(program);
  if (opened.kind === "timeout") opened = await sandbox.open(program);
  if (opened.kind !== "ok") return opened;
  try {
    return { kind: "ok", value: await use(opened.value) };
  } finally {
    await opened.value.close();
  }
}

/** Seeds 0..count−1. */
export function seedRange(count: number): number[] {
  return Array.from({ length: count }, (_, seed) => seed);
}

/**
 * Plays one episode per seed in a session, in order, with a policy made per
 * seed. After a sandbox failure the session is dead, so the remaining seeds
 * are not played (the failed episode is the last one returned).
 */
export async function playSeeds(
  session: EnvSession,
  candidate: EnvPackage,
  seeds: readonly number[],
  policyFor: (seed: number) => Policy,
  maxTurns?: number,
): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (const seed of seeds) {
    const episode = await playEpisode(session, candidate.manifest, seed, policyFor(seed), maxTurns === undefined ? {} : { maxTurns });
    episodes.push(episode);
    if (episode.failure !== undefined && episode.failure.kind !== "policy_error") break;
  }
  return episodes;
}

/** A policy that sends `actions` in turn, cycling. */
export function scriptedPolicy(name: string, actions: readonly string[]): Policy {
  return {
    name,
    async act({ turns }) {
      return { text: actions[turns.length % actions.length] ?? "" };
    },
  };
}

/** Short per-episode summary kept as evidence. */
export function episodeSummary(episodes: readonly Episode[]) {
  return episodes.map((episode) => ({
    seed: episode.seed,
    return: episode.return,
    won: episode.won,
    turns: episode.turns.length,
    ...(episode.failure ? { failure: `${episode.failure.kind}: ${episode.failure.message.slice(0, 300)}` } : {}),
  }));
}
