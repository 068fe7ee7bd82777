import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("reports a file that is not a database as a StoreError", () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-store-")), "envforge.db");
    writeFileSync(path, "this is not sqlite ".repeat(200));
    expect(() => new SqliteStore(path)).toThrowError(StoreError);
  });
});
