import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../spec/index.js";
import { redactedUrl, withoutPassword } from "./postgres-connection.js";
import { runSchema, runStoreLocation, STORE_POINTER_FILE } from "./run-folder-store.js";

describe("run store locations", () => {
  it("names distinct run folders by distinct schemas; a plain name stays readable", () => {
    expect(runSchema("runs/demo")).toBe("run_demo");
    expect(runSchema("/elsewhere/demo")).toBe("run_demo");
    const odd = ["Demo", "a-b", "a_b", "café", "cafè", "日本", "中国", "x".repeat(80), "x".repeat(81)].map((name) => runSchema(join("runs", name)));
    expect(new Set([...odd, "run_demo"]).size).toBe(odd.length + 1);
    for (const schema of odd) expect(schema).toMatch(/^run_[a-z0-9_]{1,59}$/);
  });

  it("keeps passwords out of messages and files, in the user part, a password= parameter or a multi-host URL", () => {
    expect(redactedUrl("postgres://u:s3cret@h:5432/db")).toBe("postgres://u:***@h:5432/db");
    expect(redactedUrl("postgres://u@h/db?password=s3cret&sslmode=require")).toBe("postgres://u@h/db?password=***&sslmode=require");
    expect(withoutPassword("postgres://u:s3cret@h/db?password=s3cret")).toBe("postgres://u@h/db");
    const multi = "postgresql://u:s3cret@h1:5432,h2:5432/db?password=s3cret";
    expect(redactedUrl(multi)).not.toContain("s3cret");
    expect(withoutPassword(multi)).not.toContain("s3cret");
  });

  it("refuses a store that is not one PostgreSQL server's URL, and a pointer file that does not parse", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-run-store-"));
    expect(() => runStoreLocation(folder, "mysql://h/db")).toThrowError(ConfigError);
    expect(() => runStoreLocation(folder, "postgresql://u:s3cret@h1:5432,h2:5432/db")).toThrowError(/must be a PostgreSQL URL/);
    for (const [name, text] of [
      ["bad-json", "{"],
      ["extra-key", JSON.stringify({ backend: "postgres", url: "postgres://h/db", schema: "run_x", extra: 1 })],
      ["array", "[]"],
    ] as const) {
      const run = join(folder, name);
      mkdirSync(run);
      writeFileSync(join(run, STORE_POINTER_FILE), text);
      expect(() => runStoreLocation(run, null)).toThrowError(/does not say where the run's store is \(it must be/);
    }
    rmSync(folder, { recursive: true, force: true });
  });
});
