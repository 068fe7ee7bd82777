import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SHARED_REASONS, VERDICT_REASONS, type VerdictGate } from "./index.js";

// Parts of the docs are generated from the code by scripts/generated-docs.mjs (which imports the build):
// the configuration reference (docs/configuration.md) and the verdict table (docs/admission.md). This is
// the CI check that they are current.
const SCRIPT = "scripts/generated-docs.mjs";
const scratch = mkdtempSync(join(tmpdir(), "envforge-generated-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });

describe("generated docs", () => {
  it("are current with the schema and the verdict list", () => {
    const checked = run("--check");
    expect(checked.stderr).toContain('"config" is current');
    expect(checked.stderr).toContain('"verdicts" is current');
    expect(checked.status).toBe(0);
  });

  it("list every configuration section's keys with their defaults, the levels block included", () => {
    const text = readFileSync("docs/configuration.md", "utf8");
    expect(text).toContain("| `levels.window` | integer, ≥ 1, ≤ 64 | `4` |");
    expect(text).toContain("| `solver.maxTurns` | integer, ≥ 1, ≤ 200 | `3` |");
    expect(text).toContain("| `sandbox.remote.urls` | list of string | `[]` |");
  });

  it("list every verdict, the levels gate's included", () => {
    const text = readFileSync("docs/admission.md", "utf8");
    expect(text).toContain("| `levels` | admission gate | `difficulty_inverted` |");
    expect(text).toContain("| `plan-check` | evolution | `plan_unparseable` |");
    expect(text).toContain("| `gate_error` |");
  });

  it("fail the check when a row is edited by hand, and rewriting restores it", () => {
    const copy = join(scratch, "configuration.md");
    // both parts point at scratch copies: a run of the script never rewrites the repository's docs from a test
    const verdicts = join(scratch, "admission.md");
    writeFileSync(verdicts, readFileSync("docs/admission.md", "utf8"));
    const original = readFileSync("docs/configuration.md", "utf8");
    writeFileSync(copy, original.replace("| `levels.window` | integer, ≥ 1, ≤ 64 | `4` |", "| `levels.window` | integer, ≥ 1, ≤ 64 | `5` |"));
    const stale = run("--check", "--doc", `config=${copy}`, "--doc", `verdicts=${verdicts}`);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('"config" is out of date');
    execFileSync(process.execPath, [SCRIPT, "--doc", `config=${copy}`, "--doc", `verdicts=${verdicts}`], { stdio: "ignore" });
    expect(readFileSync(copy, "utf8")).toBe(original);
  });

  it("refuse a document without the markers", () => {
    const bare = join(scratch, "bare.md");
    writeFileSync(bare, "# Admission\n");
    const result = run("--check", "--doc", `verdicts=${bare}`);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("markers");
  });
});

describe("the verdict list", () => {
  it("holds the gate and reason every broken environment of the corpus is labelled with", () => {
    const root = "fixtures/broken-envs";
    const labels = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => JSON.parse(readFileSync(join(root, entry.name, "expected.json"), "utf8")) as { gate: string | null; reason?: string });
    const unknown = labels
      .filter((label) => label.gate !== null)
      .filter((label) => !(label.reason! in SHARED_REASONS) && !(label.reason! in (VERDICT_REASONS[label.gate as VerdictGate] ?? {})))
      .map((label) => `${label.gate}/${label.reason}`);
    expect(labels.length).toBeGreaterThan(50);
    expect(unknown).toEqual([]);
  });
});
