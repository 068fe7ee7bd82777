import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../adapters/store/index.js";
import { copyRunFixture, DASHBOARD_RUN_FIXTURE, folderState, writeCorruptStore, writeForeignStore, writeOlderSchemaStore } from "../testing/dashboard-fixtures.js";
import { discoverRunFolders } from "./run-folders.js";
import { readDesigns } from "./design-list.js";
import { readEnvironmentDetail } from "./environment-detail.js";
import { readRunDetail, readRunSummary } from "./run-overview.js";
import { StoreProblemError } from "./store-problem.js";
import { openStoreSnapshot } from "./store-snapshot.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-dashboard-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("reading stores read-only", () => {
  it("reads the real run fixture without creating or changing any file in it", () => {
    const before = folderState(DASHBOARD_RUN_FIXTURE);
    const [folder] = discoverRunFolders([DASHBOARD_RUN_FIXTURE]);
    const summary = readRunSummary(folder!);
    expect(summary).toMatchObject({ status: "done", model: "embedded", trainer: "noop", roundsDone: 2, roundsPlanned: 2, admitted: 0, environments: 10, designs: 1, lastStep: 2, problem: null, mode: "snapshot" });
    const detail = readRunDetail(folder!);
    expect(detail.rounds.map((round) => round.report?.solver.episodes)).toEqual([4, 4]);
    expect(detail.metrics.rounds).toHaveLength(2);
    const played = detail.environments.find((environment) => environment.episodes > 0)!;
    const environment = readEnvironmentDetail(folder!, played.id);
    expect(environment.episodes[0]!.episode.turns.length).toBeGreaterThan(0);
    const [design] = readDesigns(folder!);
    expect(design!.stoppedBy).toMatchObject({ status: "reject", gate: "duplicate", reason: "duplicate" });
    expect(design!.repairs).toHaveLength(2);
    expect(folderState(DASHBOARD_RUN_FIXTURE)).toEqual(before);
  });

  it("reads a store while its writer has it open (live mode) and sees each new commit", () => {
    const folder = copyRunFixture(join(scratch, "live"));
    const writer = new SqliteStore(join(folder, "envforge.db"));
    try {
      const [run] = discoverRunFolders([folder]);
      expect(readRunSummary(run!).mode).toBe("live");
      const names = readdirSync(folder).sort();
      writer.beginRound(3);
      expect(readRunSummary(run!)).toMatchObject({ status: "running", roundsDone: 2 });
      expect(readdirSync(folder).sort()).toEqual(names);
    } finally {
      writer.close();
    }
  });

  it("names what is wrong: missing, corrupt, not an envforge store; and notes an older schema", () => {
    writeCorruptStore(join(scratch, "corrupt"));
    writeForeignStore(join(scratch, "foreign"));
    writeOlderSchemaStore(join(scratch, "older"));
    const problem = (path: string) => {
      try {
        openStoreSnapshot(path).db.close();
        return null;
      } catch (error) {
        return (error as StoreProblemError).problem;
      }
    };
    expect(problem(join(scratch, "nowhere", "envforge.db"))).toBe("missing");
    expect(problem(join(scratch, "corrupt", "envforge.db"))).toBe("corrupt");
    const [foreign, older, missing] = discoverRunFolders([join(scratch, "foreign"), join(scratch, "older"), join(scratch, "absent")]);
    expect(readRunSummary(foreign!).problem).toMatchObject({ kind: "schema", message: expect.stringContaining("not an envforge store") });
    expect(readRunSummary(missing!).problem).toMatchObject({ kind: "missing" });
    const summary = readRunSummary(older!);
    expect(summary).toMatchObject({ status: "done", roundsDone: 1, designs: 1, problem: null });
    expect(summary.notices).toContain("older schema: no repair turns (designs.repairs)");
    expect(summary.notices).toContain("older schema: no lineages (table lineages)");
    expect(readDesigns(older!)[0]).toMatchObject({ repairs: [], policyVersion: null, stoppedBy: { reason: "unparseable" } });
  });

  it("shows the last checkpointed state, with a warning, while a writer holds the store in exclusive mode", () => {
    const folder = copyRunFixture(join(scratch, "locked"));
    const writer = new Database(join(folder, "envforge.db"));
    try {
      writer.pragma("locking_mode = EXCLUSIVE");
      writer.prepare("INSERT INTO meta (key, value) VALUES ('held', '1')").run();
      const [run] = discoverRunFolders([folder]);
      const summary = readRunSummary(run!);
      expect(summary.problem).toBeNull();
      expect(summary.notices.join(" ")).toMatch(/exclusive mode/);
      expect(readdirSync(folder).sort()).toEqual(["envforge.db", "envforge.db-wal", "metrics.jsonl", "report.json"]);
    } finally {
      writer.close();
    }
  });
});
