import type { DesignAttempt, EnvPackage, Episode, GenerationRecord, Verdict } from "../spec/index.js";
import type { RunFolder } from "./run-folders.js";
import { StoreProblemError } from "./store-problem.js";
import { parseColumn, readStoreSchema } from "./store-schema.js";
import { withStoreSnapshot } from "./store-snapshot.js";

/** Episodes shown per environment page, newest kept (the page says how many there were). */
export const EPISODES_PER_PAGE = 200;

/** An episode played in an environment, with its context. */
export interface EnvironmentEpisode {
  readonly round: number;
  readonly role: string;
  readonly hint: boolean;
  readonly policyVersion: number;
  readonly episode: Episode;
}

/** A relative of an environment in memory (parent chain or child). */
export interface EnvironmentRelative {
  readonly id: string;
  readonly name: string;
  readonly generation: number;
  readonly origin: string;
}

/** Everything on an environment page. */
export interface EnvironmentDetail {
  readonly id: string;
  readonly round: number | null;
  readonly package: EnvPackage;
  readonly scores: Record<string, number> | null;
  /** Verdicts of the design that admitted it (or of its evolution step), in pipeline order. */
  readonly verdicts: readonly Verdict[];
  /** Rejected attempts before the admitted completion (repair turns), oldest first. */
  readonly repairs: readonly DesignAttempt[];
  /** The evolution step that produced it, when it is a generation of a lineage. */
  readonly generation: GenerationRecord | null;
  readonly episodes: readonly EnvironmentEpisode[];
  /** All episodes stored for it; more than `episodes.length` when the page shows only the newest. */
  readonly episodeCount: number;
  /** Root first, its parent last. */
  readonly ancestors: readonly EnvironmentRelative[];
  readonly children: readonly EnvironmentRelative[];
}

/**
 * The page of environment `id` in the run of `folder`: package, scores, verdicts with evidence,
 * episodes with transcripts, lineage.
 * @throws StoreProblemError when the store cannot be shown, `missing` when it holds no such environment
 */
export function readEnvironmentDetail(folder: RunFolder, id: string): EnvironmentDetail {
  return withStoreSnapshot(folder.storePath, ({ db }) => {
    const schema = readStoreSchema(db, folder.storePath);
    const row = db.prepare("SELECT id, round, package, scores, parent_id FROM environments WHERE id = ?").get(id) as
      | { id: string; round: number | null; package: string; scores: string | null; parent_id: string | null }
      | undefined;
    if (row === undefined) throw new StoreProblemError("missing", `run ${folder.id} holds no environment ${id}`);
    const relative = (environmentId: string): (EnvironmentRelative & { parentId: string | null }) | null => {
      const found = db.prepare("SELECT id, name, generation, origin, parent_id FROM environments WHERE id = ?").get(environmentId) as
        | { id: string; name: string; generation: number; origin: string; parent_id: string | null }
        | undefined;
      return found === undefined ? null : { id: found.id, name: found.name, generation: found.generation, origin: found.origin, parentId: found.parent_id };
    };
    const ancestors: EnvironmentRelative[] = [];
    const seen = new Set([id]);
    for (let parentId = row.parent_id; parentId !== null && !seen.has(parentId); ) {
      seen.add(parentId);
      const parent = relative(parentId);
      if (parent === null) break;
      const { parentId: next, ...shown } = parent;
      ancestors.unshift(shown);
      parentId = next;
    }
    const children = db.prepare("SELECT id, name, generation, origin FROM environments WHERE parent_id = ? ORDER BY seq").all(id) as EnvironmentRelative[];
    const design = db.prepare(`SELECT verdicts${schema.designColumns.has("repairs") ? ", repairs" : ""} FROM designs WHERE environment_id = ? LIMIT 1`).get(id) as
      | { verdicts: string; repairs?: string | null }
      | undefined;
    const generationRow = schema.tables.has("generations")
      ? (db.prepare("SELECT record FROM generations WHERE environment_id = ? LIMIT 1").get(id) as { record: string } | undefined)
      : undefined;
    const generation = parseColumn<GenerationRecord | null>(generationRow?.record, null);
    const verdicts = design !== undefined ? parseColumn<Verdict[]>(design.verdicts, []) : generation !== null ? [...generation.validations, ...generation.admission] : [];
    const episodeCount = (db.prepare("SELECT count(*) AS n FROM episodes WHERE environment_id = ?").get(id) as { n: number }).n;
    const episodes = (
      db.prepare("SELECT round, role, hint, policy_version, episode FROM episodes WHERE environment_id = ? ORDER BY seq DESC LIMIT ?").all(id, EPISODES_PER_PAGE) as {
        round: number;
        role: string;
        hint: number;
        policy_version: number;
        episode: string;
      }[]
    )
      .reverse()
      .map((episode) => ({ round: episode.round, role: episode.role, hint: episode.hint === 1, policyVersion: episode.policy_version, episode: parseColumn<Episode>(episode.episode, { seed: 0, initialObservation: "(damaged row)", turns: [], return: 0, won: false, terminated: false, truncated: false }) }));
    return {
      id: row.id,
      round: row.round,
      package: parseColumn<EnvPackage>(row.package, { manifest: {} as EnvPackage["manifest"], envSource: "", oracleSource: "" }),
      scores: parseColumn<Record<string, number> | null>(row.scores, null),
      verdicts,
      repairs: parseColumn<DesignAttempt[]>(design?.repairs, []),
      generation,
      episodes,
      episodeCount,
      ancestors,
      children,
    };
  });
}
