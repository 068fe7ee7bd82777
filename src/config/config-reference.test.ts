import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The configuration reference in docs/configuration.md is generated from the zod schema by
// scripts/config-reference.mjs (which imports the build); this is the CI check that it is current.
const SCRIPT = "scripts/config-reference.mjs";
const DOC = "docs/configuration.md";
const scratch = mkdtempSync(join(tmpdir(), "envforge-config-reference-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("configuration reference (docs/configuration.md)", () => {
  it("is current with src/config/schema.ts", () => {
    const checked = spawnSync(process.execPath, [SCRIPT, "--check"], { encoding: "utf8" });
    expect(checked.stderr).toContain("is current");
    expect(checked.status).toBe(0);
  });

  it("lists every section's keys with their defaults, the levels block included", () => {
    const text = readFileSync(DOC, "utf8");
    expect(text).toContain("| `levels.window` | integer, ≥ 1, ≤ 64 | `4` |");
    expect(text).toContain("| `solver.maxTurns` | integer, ≥ 1, ≤ 200 | `3` |");
    expect(text).toContain("| `sandbox.remote.urls` | list of string | `[]` |");
  });

  it("fails the check when a row is edited by hand, and rewriting restores it", () => {
    const copy = join(scratch, "configuration.md");
    const original = readFileSync(DOC, "utf8");
    writeFileSync(copy, original.replace("| `levels.window` | integer, ≥ 1, ≤ 64 | `4` |", "| `levels.window` | integer, ≥ 1, ≤ 64 | `5` |"));
    const stale = spawnSync(process.execPath, [SCRIPT, "--check", "--doc", copy], { encoding: "utf8" });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain("out of date");
    execFileSync(process.execPath, [SCRIPT, "--doc", copy]);
    expect(readFileSync(copy, "utf8")).toBe(original);
  });

  it("refuses a document without the markers", () => {
    const bare = join(scratch, "bare.md");
    writeFileSync(bare, "# Configuration\n");
    const result = spawnSync(process.execPath, [SCRIPT, "--check", "--doc", bare], { encoding: "utf8" });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("markers");
  });
});
