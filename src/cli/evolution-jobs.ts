import { createHash } from "node:crypto";
import { z } from "zod";
import type { Config } from "../config/index.js";
import type { LineageOutcome } from "../core/evolution/index.js";
import { ConfigError, type JobOutcome, type JobQueue, type LineageRecord } from "../spec/index.js";
import { ENVFORGE_VERSION } from "../support/version.js";

/**
 * An evolution job: evolve lineage `lineageId` of the evolution stored in `schema` of the
 * deployment's database (the worker's `--store`), with the evolution's config.
 */
export interface EvolutionJobPayload {
  readonly schema: string;
  readonly lineageId: string;
  readonly config: Config;
  readonly envforgeVersion: string;
}

/** The shape an evolution job's payload is checked against before a worker uses it. */
export const EvolutionJobPayloadSchema = z.object({
  schema: z.string().regex(/^[a-z0-9_]{1,63}$/),
  lineageId: z.string().min(1),
  config: z.unknown(),
  envforgeVersion: z.string(),
});

/**
 * The key of a lineage's job: the store, the lineage and the settings that bound its loop
 * (generations, attempts per generation), so `evolve --resume --generations N` with a larger N
 * enqueues it again while the same invocation does not.
 */
export function evolutionJobKey(payload: EvolutionJobPayload): string {
  const { generations, attemptsPerGeneration } = payload.config.evolution;
  return createHash("sha256").update(JSON.stringify([payload.schema, payload.lineageId, generations, attemptsPerGeneration, payload.envforgeVersion])).digest("hex");
}

/**
 * Evolves `lineages` on the workers of `queue`: one job each, waits for all, returns their outcomes
 * in order.
 * @throws ConfigError naming the first lineage whose job failed after its retries
 */
export async function evolveOnWorkers(
  queue: JobQueue,
  lineages: readonly LineageRecord[],
  schema: string,
  config: Config,
  onOutcome?: (outcome: LineageOutcome) => void,
): Promise<LineageOutcome[]> {
  const payloads: EvolutionJobPayload[] = lineages.map((lineage) => ({ schema, lineageId: lineage.id, config: { ...config, store: { url: null } }, envforgeVersion: ENVFORGE_VERSION }));
  const keys = payloads.map(evolutionJobKey);
  await queue.enqueue(
    "evolution",
    payloads.map((payload, index) => ({ key: keys[index]!, payload })),
  );
  const outcomes = await queue.wait("evolution", keys, {
    onOutcome: (outcome: JobOutcome) => {
      if (outcome.state === "done") onOutcome?.(outcome.result as LineageOutcome);
    },
    onWaiting: (status) =>
      process.stderr.write(
        `envforge: ${status.done} of ${status.done + status.pending} lineages done; ${status.queued} queued, ${status.active} running${status.active === 0 ? " (no worker is taking jobs: start envforge worker --store URL --roles evolution, with the same jobs.namespace)" : ""}\n`,
      ),
  });
  return keys.map((key, index) => {
    const outcome = outcomes.get(key);
    if (outcome === undefined || outcome.state === "failed") {
      throw new ConfigError(`the evolution job of ${lineages[index]!.id} failed on the workers: ${outcome?.state === "failed" ? outcome.error : "no outcome"}`);
    }
    return outcome.result as LineageOutcome;
  });
}
