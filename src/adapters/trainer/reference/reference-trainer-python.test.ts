import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REFERENCE_TRAINER_DIR } from "./reference-trainer-process.js";

/** Runs the reference trainer's own pytest suite (loss maths by hand, routes over a tiny random model). */
describe("reference trainer pytest suite", () => {
  it("passes", () => {
    const result = spawnSync(join(REFERENCE_TRAINER_DIR, ".venv/bin/python"), ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {
      cwd: REFERENCE_TRAINER_DIR,
      encoding: "utf8",
      timeout: 110_000,
    });
    expect(result.stdout + result.stderr).toMatch(/\d+ passed/);
    expect(result.status).toBe(0);
  });
});
