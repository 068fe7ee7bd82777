import { createHash } from "node:crypto";
import { ConfigError, StoreError, type Store } from "../../spec/index.js";

/** Store metadata key of a run's holdout split. */
export const HOLDOUT_META = "holdoutSplit";

/** A persisted holdout split of a run's pool: these package ids are evaluated, never sampled for training. */
export interface HoldoutSplit {
  /** Held-out environment ids (the store's package ids), sorted. */
  readonly ids: readonly string[];
  /** Fraction of the pool asked for when the split was made. */
  readonly fraction: number;
  /** Seed of the split's ranking. */
  readonly seed: number;
  /** Environments in the pool when the split was made (environments admitted later are never held out). */
  readonly poolSize: number;
  /** Rounds of the run already begun when the split was made: a split made after training began held out environments training may already have played. */
  readonly roundsBefore: number;
  readonly createdAt: string;
}

/**
 * The ids to hold out of `ids`: ranked by sha256 of `seed/holdout/id` (so the choice does not
 * depend on order), the first `round(fraction · n)`, at least one when `fraction` > 0 and at
 * most `n − 1` (training keeps one environment at least).
 *
 * @param fraction in [0, 1)
 * @throws ConfigError for a fraction outside [0, 1)
 */
export function chooseHoldout(ids: readonly string[], fraction: number, seed: number): string[] {
  if (!(fraction >= 0 && fraction < 1)) throw new ConfigError(`the holdout fraction must be in [0, 1), got ${fraction}`);
  const unique = [...new Set(ids)];
  if (fraction === 0 || unique.length < 2) return [];
  const count = Math.min(unique.length - 1, Math.max(1, Math.round(fraction * unique.length)));
  const rank = (id: string) => createHash("sha256").update(`${seed}/holdout/${id}`).digest("hex");
  return unique
    .map((id) => ({ id, key: rank(id) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, count)
    .map((entry) => entry.id)
    .sort();
}

/**
 * The run's holdout split, or null when it has none.
 * @throws StoreError when the stored value is not a holdout split
 */
export function readHoldout(store: Pick<Store, "getMeta">): HoldoutSplit | null {
  const value = store.getMeta(HOLDOUT_META) as Partial<HoldoutSplit> | undefined;
  if (value === undefined) return null;
  if (!Array.isArray(value.ids) || !value.ids.every((id) => typeof id === "string") || typeof value.fraction !== "number" || typeof value.seed !== "number") {
    throw new StoreError(`the stored ${HOLDOUT_META} is not a holdout split: ${JSON.stringify(value).slice(0, 200)}`);
  }
  return value as HoldoutSplit;
}

/**
 * The run's holdout split: the stored one (a split is made once and never changes, so training
 * and evaluation agree on it across resumes), else a new split of the environments in the store,
 * persisted before it is returned.
 *
 * @throws ConfigError when a split exists with another fraction or seed, or the fraction is outside [0, 1)
 * @throws StoreError when the store cannot be read or written
 */
export function ensureHoldout(store: Pick<Store, "getMeta" | "setMeta" | "listEnvironments" | "listRounds">, fraction: number, seed: number, now: () => Date = () => new Date()): HoldoutSplit {
  const existing = readHoldout(store);
  if (existing !== null) {
    if (existing.fraction !== fraction || existing.seed !== seed) {
      throw new ConfigError(`the run already has a holdout split (fraction ${existing.fraction}, seed ${existing.seed}); evaluate with those values (a split never changes)`);
    }
    return existing;
  }
  const ids = store.listEnvironments().map((record) => record.id);
  const split: HoldoutSplit = { ids: chooseHoldout(ids, fraction, seed), fraction, seed, poolSize: ids.length, roundsBefore: store.listRounds().length, createdAt: now().toISOString() };
  store.setMeta(HOLDOUT_META, split);
  return split;
}

/** `records` without the held-out ones (all of them when there is no split). */
export function withoutHoldout<T extends { readonly id: string }>(records: readonly T[], split: HoldoutSplit | null): T[] {
  if (split === null || split.ids.length === 0) return [...records];
  const held = new Set(split.ids);
  return records.filter((record) => !held.has(record.id));
}
