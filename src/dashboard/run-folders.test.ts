import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMetricsLog } from "./metrics-log.js";
import { discoverRunFolders } from "./run-folders.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-dashboard-folders-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("run folders and metrics", () => {
  it("takes a run folder as itself, a folder of runs as its runs, a missing path as a missing run; ids are unique", () => {
    for (const name of ["run-b", "run-a", "evolve-c"]) {
      mkdirSync(join(scratch, "runs", name), { recursive: true });
      writeFileSync(join(scratch, "runs", name, "report.json"), "[]");
    }
    mkdirSync(join(scratch, "runs", "not-a-run"));
    mkdirSync(join(scratch, "other", "run-a"), { recursive: true });
    writeFileSync(join(scratch, "other", "run-a", "envforge.db"), "");
    const folders = discoverRunFolders([join(scratch, "runs"), join(scratch, "other", "run-a"), join(scratch, "gone")]);
    expect(folders.map((folder) => folder.id)).toEqual(["evolve-c", "run-a", "run-b", "run-a-2", "gone"]);
    expect(folders[4]!.storePath).toBe(join(scratch, "gone", "envforge.db"));
  });

  it("reads metrics.jsonl by kind and counts a partial last line instead of failing", () => {
    const path = join(scratch, "metrics.jsonl");
    writeFileSync(path, `${JSON.stringify({ kind: "round", round: 1 })}\n${JSON.stringify({ kind: "trainer_step", policyVersion: 1, loss: 2 })}\n`);
    appendFileSync(path, '{"kind":"round","rou');
    expect(readMetricsLog(path)).toEqual({ rounds: [{ kind: "round", round: 1 }], trainerSteps: [{ kind: "trainer_step", policyVersion: 1, loss: 2 }], skippedLines: 1 });
    expect(readMetricsLog(join(scratch, "none.jsonl"))).toEqual({ rounds: [], trainerSteps: [], skippedLines: 0 });
  });
});
