import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../adapters/store/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { ConfigError, packageId, StoreError } from "../../spec/index.js";
import { chooseHoldout, ensureHoldout, HOLDOUT_META, readHoldout, withoutHoldout } from "./holdout-split.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function storePath(): string {
  const folder = mkdtempSync(join(tmpdir(), "envforge-holdout-"));
  folders.push(folder);
  return join(folder, "envforge.db");
}
function fill(store: SqliteStore, count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const pkg = samplePackage(index);
    store.addEnvironment({ id: packageId(pkg), package: pkg, round: null, scores: null });
    return packageId(pkg);
  });
}

describe("chooseHoldout", () => {
  const ids = Array.from({ length: 10 }, (_, index) => `env-${index}`);
  it("holds out round(fraction · n), whatever the order of the ids, and never all of them", () => {
    const held = chooseHoldout(ids, 0.2, 3);
    expect(held).toHaveLength(2);
    expect(chooseHoldout([...ids].reverse(), 0.2, 3)).toEqual(held);
    expect(chooseHoldout(ids, 0.2, 4)).not.toEqual(held);
    expect(chooseHoldout(ids.slice(0, 2), 0.9, 3)).toHaveLength(1);
    expect(chooseHoldout(ids.slice(0, 1), 0.5, 3)).toEqual([]);
    expect(chooseHoldout(ids, 0, 3)).toEqual([]);
    expect(() => chooseHoldout(ids, 1, 3)).toThrowError(ConfigError);
  });
});

describe("the holdout split of a run's store", () => {
  it("is persisted: a reopened store gives the same split, later environments are never added, and training's pool leaves it out", () => {
    const path = storePath();
    const first = new SqliteStore(path);
    const ids = fill(first, 10);
    const split = ensureHoldout(first, 0.3, 5, () => new Date("2026-01-01T00:00:00Z"));
    expect(split).toMatchObject({ fraction: 0.3, seed: 5, poolSize: 10, roundsBefore: 0, createdAt: "2026-01-01T00:00:00.000Z" });
    expect(split.ids).toHaveLength(3);
    first.close();

    const reopened = new SqliteStore(path);
    fill(reopened, 12); // two more environments admitted after the split
    expect(readHoldout(reopened)).toEqual(split);
    expect(ensureHoldout(reopened, 0.3, 5)).toEqual(split);
    const training = withoutHoldout(reopened.listEnvironments(), readHoldout(reopened));
    expect(training).toHaveLength(9);
    expect(training.some((record) => split.ids.includes(record.id))).toBe(false);
    expect(split.ids.every((id) => ids.includes(id))).toBe(true);
    // a split never changes
    expect(() => ensureHoldout(reopened, 0.5, 5)).toThrowError(ConfigError);
    reopened.close();
  });
  it("a malformed stored split is a StoreError; no split leaves the pool whole", () => {
    const store = new SqliteStore(storePath());
    fill(store, 3);
    expect(withoutHoldout(store.listEnvironments(), readHoldout(store))).toHaveLength(3);
    store.setMeta(HOLDOUT_META, { ids: "all" });
    expect(() => readHoldout(store)).toThrowError(StoreError);
    store.close();
  });
});
