import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../adapters/store/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { lineageIdFor } from "../core/evolution/index.js";
import { packageId, type EvolutionAttemptRecord } from "../spec/index.js";

// End-to-end tests of the built CLI's evolution commands (npm test builds first). They use a
// missing model file (so no model runs) or a store written by the test itself.

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), "envforge-evolve-"));
const run = (args: readonly string[]) => spawnSync("node", [BIN, ...args], { encoding: "utf8" });

describe("envforge evolve / lineage show / rubric learn", () => {
  it("evolves the ten seeds with a missing model: every lineage stored and listed, exit 1 with the reason", () => {
    const out = join(scratch(), "evolution");
    const result = run(["evolve", "--from", "seeds", "--generations", "2", "--out", out, "--model", join(scratch(), "missing.gguf")]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/0 generation\(s\) validated across 10 lineage\(s\)/);
    expect(result.stderr).toMatch(/model_error/);
    expect(result.stderr).toMatch(/the model never answered/);
    const lineages = JSON.parse(readFileSync(join(out, "lineages.json"), "utf8"));
    expect(lineages.map((lineage: { seed: string }) => lineage.seed)).toEqual(loadSeedPackages().map(packageId));
    expect(lineages.every((lineage: { generations: unknown[] }) => lineage.generations.length === 0)).toBe(true);

    const show = run(["lineage", "show", "number-guess", "--from", out]);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^lin-number-guess-[0-9a-f]{8}\nseed number-guess env-[0-9a-f]{16}  D=\d+\.\d\d \(L 2 \+ σ/);
    expect(show.stdout).toMatch(/attempts: 2 \(model_error 2\)/);

    // the directory now holds an evolution: a second run needs --resume
    const again = run(["evolve", "--from", "seeds", "--out", out]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already holds a store; pass --resume/);
  });

  it("exits 2 for bad flags, a missing --from and --resume without an evolution", () => {
    const folder = scratch();
    for (const args of [["--direction", "up"], ["--effort", "huge"], ["--generations", "0"]]) {
      const result = run(["evolve", "--from", "seeds", ...args, "--out", join(folder, "x")]);
      expect(result.status, args.join(" ")).toBe(2);
    }
    expect(run(["evolve", "--out", join(folder, "y")]).stderr).toMatch(/evolve needs --from/);
    const resume = run(["evolve", "--resume", "--out", join(folder, "z")]);
    expect(resume.status).toBe(2);
    expect(resume.stderr).toMatch(/holds no evolution/);
    expect(run(["lineage", "show", "x", "--from", folder]).status).toBe(2);
    expect(existsSync(join(folder, "x"))).toBe(false);
  });

  it("learns a rubric from a reviewed failure and appends it to the rubric file", () => {
    const out = scratch();
    const seed = loadSeedPackages()[0]!;
    const store = new SqliteStore(join(out, "envforge.db"));
    const lineageId = lineageIdFor(seed);
    const sequence = { steps: [{ scenario: "s", skill: "k" }], source: "manifest" as const };
    store.addLineage({ id: lineageId, seedId: packageId(seed), seedName: seed.manifest.name, seed, sequence, difficulty: { length: 1, scenarioSurprise: 1, skillSurprise: 1, total: 3 }, createdAt: "2026-11-29T00:00:00.000Z" });
    const attempt: EvolutionAttemptRecord = {
      lineageId,
      generation: 1,
      attempt: 0,
      direction: "skill",
      effort: "low",
      outcome: "validation_failed",
      planning: [{ completion: "{}", plan: { summary: "s", steps: sequence.steps }, review: { status: "pass", gate: "plan-review" } }],
      modification: [{ completion: "...", form: "files", verdicts: [{ status: "pass", gate: "oracle" }, { status: "reject", gate: "rubric", reason: "rubric_failed", message: "The observation must state the answer format." }] }],
      admission: [],
      seconds: 1,
    };
    store.saveEvolutionAttempt(attempt);
    store.close();
    const rubrics = join(out, "rubrics.md");
    writeFileSync(rubrics, "# Mine\n\n## Plan\n\n- keep it short\n\n## Child\n\n- old rule\n");
    const result = run(["rubric", "learn", "--from", out, "--lineage", seed.manifest.name, "--rubrics", rubrics]);
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(rubrics, "utf8")).toBe(
      `# Mine\n\n## Plan\n\n- keep it short\n\n## Child\n\n- old rule\n- The observation must state the answer format. <!-- learned from ${lineageId} g1 attempt 1, modification round 1 -->\n`,
    );
    const plan = run(["rubric", "learn", "--from", out, "--lineage", seed.manifest.name, "--rubrics", rubrics, "--stage", "plan"]);
    expect(plan.status).toBe(2);
    expect(plan.stderr).toMatch(/no reviewed failure of stage plan/);
  });
});
