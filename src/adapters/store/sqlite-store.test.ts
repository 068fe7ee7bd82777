import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StoreError } from "../../spec/index.js";
import { SqliteStore } from "./sqlite-store.js";
import { storeContract } from "./store.contract.js";

storeContract("sqlite", () => new SqliteStore(join(mkdtempSync(join(tmpdir(), "envforge-store-")), "run", "envforge.db")));

describe("SqliteStore", () => {
  it("keeps data across reopen", () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-store-")), "envforge.db");
    const first = new SqliteStore(path);
    first.setMeta("k", 1);
    first.close();
    const second = new SqliteStore(path);
    expect(second.getMeta("k")).toBe(1);
    second.close();
  });

  it("opens a store written before designs carried tokens, and adds the columns", () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-store-")), "envforge.db");
    const old = new Database(path);
    old.exec(`CREATE TABLE designs (round INTEGER NOT NULL, idx INTEGER NOT NULL, prompt_hash TEXT NOT NULL, corpus_document_ids TEXT NOT NULL,
      completion TEXT NOT NULL, verdicts TEXT NOT NULL, environment_id TEXT, reward REAL NOT NULL, PRIMARY KEY (round, idx))`);
    old.prepare("INSERT INTO designs VALUES (1, 0, 'p', '[]', 'old', '[]', NULL, 0.5)").run();
    old.close();
    const store = new SqliteStore(path);
    expect(store.listDesigns(1)).toEqual([{ round: 1, index: 0, promptHash: "p", corpusDocumentIds: [], completion: "old", verdicts: [], environmentId: null, reward: 0.5 }]);
    store.saveDesign({ round: 1, index: 1, promptHash: "q", corpusDocumentIds: [], completion: "new", verdicts: [], environmentId: null, reward: 0, policyVersion: 2 });
    expect(store.listDesigns(1)[1]?.policyVersion).toBe(2);
    store.close();
  });

  it("reports a file that is not a database as a StoreError", () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-store-")), "envforge.db");
    writeFileSync(path, "this is not sqlite ".repeat(200));
    expect(() => new SqliteStore(path)).toThrowError(StoreError);
  });
});
