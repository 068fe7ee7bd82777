import type { EvolutionAttemptRecord, FrontierProbeRecord, GenerationRecord, LineageRecord } from "../spec/index.js";
import type { RunFolder } from "./run-folders.js";
import { parseColumn, readStoreSchema } from "./store-schema.js";
import { withStoreSnapshot } from "./store-snapshot.js";

/** One lineage with its generations, every attempt and the frontier probes on it. */
export interface LineageView {
  /** The lineage record without the seed package's sources (the seed has its own environment page). */
  readonly lineage: Omit<LineageRecord, "seed"> & { readonly seedTitle: string | null };
  readonly generations: readonly GenerationRecord[];
  readonly attempts: readonly EvolutionAttemptRecord[];
  readonly probes: readonly FrontierProbeRecord[];
}

/**
 * The lineages of the store in `folder` (an evolution, or a run that imported lineages for
 * frontier sampling); empty for stores that predate lineages.
 * @throws StoreProblemError when the store cannot be shown
 */
export function readLineages(folder: RunFolder): LineageView[] {
  return withStoreSnapshot(folder.storePath, ({ db }) => {
    const schema = readStoreSchema(db, folder.storePath);
    if (!schema.tables.has("lineages")) return [];
    const records = <T>(sql: string, ...parameters: unknown[]): T[] =>
      (db.prepare(sql).all(...parameters) as { record: string }[]).map((row) => parseColumn<T | null>(row.record, null)).filter((value): value is T => value !== null);
    const probes = schema.tables.has("frontier_probes") ? records<FrontierProbeRecord>("SELECT record FROM frontier_probes ORDER BY seq") : [];
    return records<LineageRecord>("SELECT record FROM lineages ORDER BY seq").map((record) => {
      const { seed, ...lineage } = record;
      return {
        lineage: { ...lineage, seedTitle: typeof seed?.manifest?.title === "string" ? seed.manifest.title : null },
        generations: schema.tables.has("generations") ? records<GenerationRecord>("SELECT record FROM generations WHERE lineage_id = ? ORDER BY generation", record.id) : [],
        attempts: schema.tables.has("evolution_attempts")
          ? records<EvolutionAttemptRecord>("SELECT record FROM evolution_attempts WHERE lineage_id = ? ORDER BY generation, attempt", record.id)
          : [],
        probes: probes.filter((probe) => probe.lineageId === record.id),
      };
    });
  });
}
