import type { EnvironmentRecord, FrontierProbeRecord, Store } from "../../spec/index.js";
import { climbLadder, reachesThreshold, startLadder, type LadderRule } from "./ladder.js";

/** Settings of the frontier scheduler. */
export interface FrontierSettings {
  /** Rollouts per probe (8 in the source). @default 8 */
  readonly rollouts: number;
  /** Wins out of `rollouts` that release the next generation (6 of 8 in the source). @default 6 */
  readonly releaseWins: number;
}

/** A lineage as the scheduler sees it: its environments by generation (index 0 = the seed). */
export interface ScheduledLineage {
  readonly lineageId: string;
  readonly environmentIds: readonly string[];
}

/** Plays a probe: the number of wins out of `rollouts` on one environment. */
export type FrontierProbe = (environmentId: string, lineageId: string, generation: number) => Promise<{ readonly wins: number; readonly rollouts: number }>;

/**
 * The frontier scheduler as a {@link LadderRule} on the generation axis: each
 * probe is judged on its own (`minSamples` 1) at the rate `releaseWins /
 * rollouts` (6/8), and only the frontier generation is in play (`window` 1).
 * The level controller is the same ladder on the level axis.
 */
export function frontierRule(settings: FrontierSettings): LadderRule {
  return { threshold: settings.releaseWins / settings.rollouts, minSamples: 1, window: 1 };
}

/**
 * Whether a probe releases the next generation (environment evolution,
 * frontier scheduler: release at a pass rate of at least 6/8). The rate is
 * compared as `wins / rollouts ≥ releaseWins / settings.rollouts`, so a probe
 * with a different rollout count is judged by the same rate.
 */
export function releases(wins: number, rollouts: number, settings: FrontierSettings): boolean {
  return reachesThreshold(wins, rollouts, frontierRule(settings).threshold);
}

/**
 * Current frontier generation of every lineage, from the stored probes alone
 * (so the state survives restarts): the lineage's ladder ({@link climbLadder}
 * with {@link frontierRule}) climbed by its probes in stored order, each probe
 * a batch of `rollouts` outcomes at its generation of which `released`
 * decided the step; never past the lineage's last generation.
 */
export function frontierGenerations(lineages: readonly ScheduledLineage[], probes: readonly FrontierProbeRecord[]): Map<string, number> {
  const frontiers = new Map<string, number>();
  // the stored verdict decides (a probe stored with released: true moves the frontier whatever the settings are now)
  const rule: LadderRule = { threshold: 1, minSamples: 1, window: 1 };
  for (const lineage of lineages) {
    const last = Math.max(0, lineage.environmentIds.length - 1);
    let state = startLadder();
    for (const probe of probes) {
      if (probe.lineageId !== lineage.lineageId) continue;
      state = climbLadder(state, [{ rung: probe.generation, won: probe.released }], rule, last).state;
    }
    frontiers.set(lineage.lineageId, state.high);
  }
  return frontiers;
}

/** The lineages in a store, with their seed and generation environments in order. */
export function scheduledLineages(store: Store): ScheduledLineage[] {
  return store.listLineages().map((lineage) => ({
    lineageId: lineage.id,
    environmentIds: [lineage.seedId, ...store.listGenerations(lineage.id).map((generation) => generation.environmentId)],
  }));
}

/**
 * One scheduler step of training round `round`: every lineage whose frontier
 * is not its last generation and that has no probe stored for this round is
 * probed at its frontier with `probe`; the probe is stored, and when it
 * releases (≥ 6/8) the frontier moves to the next generation. Probes already
 * stored for the round are kept (resume). Returns the probes made now.
 *
 * @throws StoreError when the store cannot be written
 */
export async function advanceFrontiers(store: Store, round: number, probe: FrontierProbe, settings: FrontierSettings): Promise<FrontierProbeRecord[]> {
  const lineages = scheduledLineages(store);
  const stored = store.listFrontierProbes();
  const frontiers = frontierGenerations(lineages, stored);
  const made: FrontierProbeRecord[] = [];
  for (const lineage of lineages) {
    const generation = frontiers.get(lineage.lineageId) ?? 0;
    if (generation >= lineage.environmentIds.length - 1) continue;
    if (stored.some((record) => record.lineageId === lineage.lineageId && record.round === round)) continue;
    const result = await probe(lineage.environmentIds[generation] as string, lineage.lineageId, generation);
    const record: FrontierProbeRecord = {
      lineageId: lineage.lineageId,
      generation,
      round,
      rollouts: result.rollouts,
      wins: result.wins,
      released: releases(result.wins, result.rollouts, settings),
    };
    store.saveFrontierProbe(record);
    made.push(record);
  }
  return made;
}

/** The environment at each lineage's current frontier (training samples from these). */
export function frontierEnvironments(store: Store): EnvironmentRecord[] {
  const lineages = scheduledLineages(store);
  const frontiers = frontierGenerations(lineages, store.listFrontierProbes());
  const byId = new Map(store.listEnvironments().map((record) => [record.id, record]));
  return lineages.flatMap((lineage) => {
    const record = byId.get(lineage.environmentIds[frontiers.get(lineage.lineageId) ?? 0] as string);
    return record === undefined ? [] : [record];
  });
}

/** What {@link frontierPool} needs from a self-play round. */
export interface FrontierPoolInput {
  readonly store: Store;
  readonly round: number;
  /** Plays a lineage's frontier environment (the self-play loop's Solver without the hint). */
  readonly probe: FrontierProbe;
  readonly settings: FrontierSettings;
}

/**
 * The training loop's view of the scheduler (config `solver.sampling:
 * "frontier"`): advances the frontiers for `round`, then returns the frontier
 * environment of every lineage. A store without lineages returns all of its
 * environments, so sampling falls back to uniform.
 */
export async function frontierPool(input: FrontierPoolInput): Promise<EnvironmentRecord[]> {
  if (input.store.listLineages().length === 0) return input.store.listEnvironments();
  await advanceFrontiers(input.store, input.round, input.probe, input.settings);
  return frontierEnvironments(input.store);
}

/**
 * Copies the lineages, generations and their environments of `from` (an
 * evolution store) into `into` (a training run's store); already present
 * records are left unchanged. Returns the number of lineages copied anew.
 */
export function importLineages(from: Store, into: Store): number {
  const environments = new Map(from.listEnvironments().map((record) => [record.id, record]));
  let added = 0;
  for (const lineage of from.listLineages()) {
    if (into.addLineage(lineage)) added += 1;
    into.addEnvironment(environments.get(lineage.seedId) ?? { id: lineage.seedId, package: lineage.seed, round: null, scores: null });
    for (const generation of from.listGenerations(lineage.id)) {
      const environment = environments.get(generation.environmentId);
      if (environment !== undefined) into.saveGeneration(generation, environment);
    }
  }
  return added;
}
