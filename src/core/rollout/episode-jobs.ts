import type { EnvManifest, EnvProgram, EnvSession, Episode, Sandbox, SandboxFailureKind, SandboxOutcome } from "../../spec/index.js";
import { ItemPool } from "../../support/item-pool.js";
import { mapWithConcurrency } from "../../support/concurrency.js";
import { playEpisode, type PlayEpisodeOptions } from "./play-episode.js";
import type { Policy } from "./policy.js";

/** One episode to play: where, with which seed and policy. */
export interface EpisodeJob {
  /** The program the episode runs in; jobs naming the same object share sessions. */
  readonly program: EnvProgram;
  readonly manifest: EnvManifest;
  /** Episode seed passed to `reset`. */
  readonly seed: number;
  /** Made when the episode starts (a Solver policy holds its chat per episode). */
  readonly policy: () => Policy;
  readonly options?: PlayEpisodeOptions;
}

/** Options of {@link playEpisodeJobs}. */
export interface EpisodeJobsOptions {
  /** Episodes in flight at once, each in its own sandbox session; at least 1. @default 1 */
  readonly concurrency?: number;
  /** Called as each episode ends (in completion order), with the job's index. */
  readonly onEpisode?: (index: number, outcome: SandboxOutcome<Episode>) => void;
}

/** A lane: one session slot, kept open across the jobs of one program. */
interface Lane {
  program: EnvProgram | null;
  session: EnvSession | null;
}

/**
 * Plays `jobs` with up to `concurrency` episodes in flight, and returns their outcomes in job
 * order, whatever the completion order: seeds and policies come from the jobs, so which
 * instance each episode plays and where it is stored do not depend on timing (the sampled
 * tokens of a batched engine can, at the last bit of its arithmetic). Each of `concurrency`
 * lanes keeps one session open across consecutive jobs of the same program (a job prefers a
 * lane already holding its program) and opens a fresh one after a sandbox failure cut an
 * episode short (a policy error leaves the session usable). A load that times out is tried
 * once more (on a loaded machine a start can be slow); a program that still fails to load is
 * not tried again in this call: its remaining jobs get the same failure. A load failure is that
 * job's outcome (`kind` ≠ `ok`); an episode the sandbox or the policy cut short is an `ok`
 * outcome whose episode records the `failure`. Never throws for sandbox or policy failures.
 * Anything else thrown (an unavailable sandbox, a policy that cannot be made, `onEpisode`)
 * starts no new job and is rethrown once the running episodes have ended; every session is
 * closed on return.
 *
 * @throws what `sandbox.open`, a job's `policy` or `onEpisode` throws
 */
export async function playEpisodeJobs(sandbox: Sandbox, jobs: readonly EpisodeJob[], options: EpisodeJobsOptions = {}): Promise<Array<SandboxOutcome<Episode>>> {
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, jobs.length));
  const lanes: Lane[] = Array.from({ length: concurrency }, () => ({ program: null, session: null }));
  const free = new ItemPool(lanes);
  const unloadable = new Map<EnvProgram, SandboxOutcome<never>>();
  // a throw (sandbox unavailable, a policy that cannot be made, a listener) stops new jobs, but the
  // lanes are closed only once every running episode has ended, and the first error is rethrown then
  let failure: { readonly error: unknown } | null = null;
  const outcomes = await mapWithConcurrency(jobs, concurrency, async (job, index): Promise<SandboxOutcome<Episode> | null> => {
    if (failure !== null) return null;
    const lane = await free.take((candidate) => (candidate.program === job.program && candidate.session !== null ? 1 : 0));
    try {
      const outcome = await playInLane(sandbox, lane, job, unloadable);
      options.onEpisode?.(index, outcome);
      return outcome;
    } catch (error) {
      failure ??= { error };
      return null;
    } finally {
      free.give(lane);
    }
  });
  await Promise.all(lanes.map((lane) => lane.session?.close()));
  if (failure !== null) throw (failure as { readonly error: unknown }).error;
  return outcomes as Array<SandboxOutcome<Episode>>;
}

async function playInLane(sandbox: Sandbox, lane: Lane, job: EpisodeJob, unloadable: Map<EnvProgram, SandboxOutcome<never>>): Promise<SandboxOutcome<Episode>> {
  if (lane.program !== job.program || lane.session === null) {
    await lane.session?.close();
    lane.session = null;
    lane.program = job.program;
    const known = unloadable.get(job.program);
    if (known !== undefined) return known;
    let opened = await sandbox.open(job.program);
    if (opened.kind === "timeout") opened = await sandbox.open(job.program);
    if (opened.kind !== "ok") {
      unloadable.set(job.program, opened);
      return opened;
    }
    lane.session = opened.value;
  }
  const episode = await playEpisode(lane.session, job.manifest, job.seed, job.policy(), job.options);
  if (episode.failure !== undefined && episode.failure.kind !== "policy_error") {
    // the failure killed the episode's session: the lane's next job gets a fresh one
    await lane.session.close();
    lane.session = null;
  }
  return { kind: "ok", value: episode };
}

/**
 * The episode recorded for a job whose environment could not be loaded: no turns, the
 * lowest return of the manifest's range, truncated, with the load failure.
 */
export function unplayedEpisode(job: Pick<EpisodeJob, "seed" | "manifest" | "options">, failure: { readonly kind: SandboxFailureKind; readonly message: string }): Episode {
  const level = job.manifest.levels === undefined ? undefined : (job.options?.level ?? 0);
  return {
    seed: job.seed,
    ...(level === undefined ? {} : { level }),
    initialObservation: "",
    turns: [],
    return: job.manifest.rewardRange[0],
    won: false,
    terminated: false,
    truncated: true,
    failure: { kind: failure.kind, message: failure.message },
  };
}

/** The episode of every outcome, a load failure becoming its {@link unplayedEpisode}. */
export function episodesOf(jobs: readonly EpisodeJob[], outcomes: ReadonlyArray<SandboxOutcome<Episode>>): Episode[] {
  return outcomes.map((outcome, index) => (outcome.kind === "ok" ? outcome.value : unplayedEpisode(jobs[index] as EpisodeJob, outcome)));
}
