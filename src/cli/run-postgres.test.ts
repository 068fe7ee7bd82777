import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore, startThrowawayCluster, type ThrowawayCluster } from "../adapters/store/index.js";
import { STORE_POINTER_FILE } from "../adapters/store/index.js";
import { killWhen } from "../testing/kill-when.js";
import { runStoreCatalog } from "../server/index.js";

// End-to-end tests of the built CLI (npm test builds first) on a throwaway PostgreSQL cluster, with the
// real embedded model and the noop trainer (the run's control flow, not training).

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));
const SMALL = { rounds: 1, plays: 1, solver: { environments: 1, maxTurns: 2, maxTokens: 16 }, designer: { designs: 3, maxTokens: 96 }, trainer: { backend: "noop" } };

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
afterAll(() => cluster?.stop());

describe("envforge run --store postgres://…", () => {
  it("refuses a store URL that is not PostgreSQL, before it writes anything", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-pg-run-"));
    const result = spawnSync("node", [BIN, "run", "--store", "mysql://db/x", "--out", join(folder, "run")], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/store\.url must be a PostgreSQL URL/);
    expect(existsSync(join(folder, "run"))).toBe(false);
    rmSync(folder, { recursive: true, force: true });
  });

  it("an orchestrator killed mid-round is resumed on another machine from the store alone, losing and duplicating nothing", async () => {
    const first = mkdtempSync(join(tmpdir(), "envforge-pg-run-"));
    const config = join(first, "config.json");
    writeFileSync(config, JSON.stringify(SMALL));
    const out = join(first, "demo");
    const designsStored = () => {
      try {
        const store = new PostgresStore(cluster.url, "run_demo");
        try {
          return store.listDesigns(1).length;
        } finally {
          store.close();
        }
      } catch {
        return 0;
      }
    };
    await killWhen([BIN, "run", "--config", config, "--out", out, "--store", cluster.url], () => designsStored() >= 1, { pollMs: 300 });
    const before = designsStored();
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(3);
    // the pointer names the store without a password; the first machine's folder is then gone
    expect(JSON.parse(readFileSync(join(out, STORE_POINTER_FILE), "utf8"))).toEqual({ backend: "postgres", url: cluster.url, schema: "run_demo" });
    rmSync(first, { recursive: true, force: true });

    // another machine: an empty folder of the same name, the store's URL, --resume; the config comes from the store
    const second = mkdtempSync(join(tmpdir(), "envforge-pg-run-"));
    const elsewhere = join(second, "demo");
    const resumed = spawnSync("node", [BIN, "run", "--out", elsewhere, "--store", cluster.url, "--resume"], { encoding: "utf8", timeout: 480_000 });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming/);
    const store = new PostgresStore(cluster.url, "run_demo");
    try {
      expect(store.listDesigns(1).map((design) => design.index)).toEqual([0, 1, 2]);
      const ids = store.listEnvironments().map((record) => record.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(store.listRounds().map((round) => round.status)).toEqual(["done"]);
    } finally {
      store.close();
    }
    // serve --store and export read the run through the folder's store.json
    expect(runStoreCatalog(elsewhere).size).toBeGreaterThanOrEqual(10);
    const report = JSON.parse(readFileSync(join(elsewhere, "report.json"), "utf8"));
    expect(report).toHaveLength(1);
    expect(report[0].proposed).toBe(3);
    // a second orchestrator naming the same run without --resume is refused: one run, one orchestrator
    const clash = spawnSync("node", [BIN, "run", "--out", elsewhere, "--store", cluster.url], { encoding: "utf8" });
    expect(clash.status).toBe(2);
    expect(clash.stderr).toMatch(/already holds a run \(postgres:\/\/.* \(schema run_demo\)\); pass --resume/);
    rmSync(second, { recursive: true, force: true });
  }, 900_000);
});
