import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StoreError } from "../../spec/index.js";
import { evalStoreContract } from "./eval-store.contract.js";
import { SqliteEvalStore } from "./sqlite-eval-store.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "envforge-eval-store-"));
  folders.push(path);
  return path;
}

const record = { id: "abc123", model: "m", checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-12-01T00:00:00.000Z" };

evalStoreContract("sqlite", () => new SqliteEvalStore(join(folder(), "eval.db")));

describe("SqliteEvalStore", () => {
  it("read-only: an empty file reads as no evaluations and stays empty; a missing file throws; writes throw", () => {
    const dir = folder();
    const empty = join(dir, "empty.db");
    writeFileSync(empty, "");
    const store = new SqliteEvalStore(empty, { readOnly: true });
    expect(store.listEvals()).toEqual([]);
    expect(store.findEval("abc")).toBeUndefined();
    expect(store.listItems("abc")).toEqual([]);
    expect(() => store.beginEval(record)).toThrowError(StoreError);
    store.close();
    expect(statSync(empty).size).toBe(0);
    expect(readdirSync(dir)).toEqual(["empty.db"]);
    expect(() => new SqliteEvalStore(join(dir, "missing.db"), { readOnly: true })).toThrowError(StoreError);
    expect(readdirSync(dir)).toEqual(["empty.db"]);
  });

  it("read-only: reads what a writer stored", () => {
    const path = join(folder(), "eval.db");
    const writer = new SqliteEvalStore(path);
    writer.beginEval(record);
    writer.close();
    const reader = new SqliteEvalStore(path, { readOnly: true });
    expect(reader.listEvals().map((stored) => stored.id)).toEqual(["abc123"]);
    expect(reader.findEval("abc")?.model).toBe("m");
    reader.close();
  });
});
