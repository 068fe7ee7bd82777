import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobResults, PgBossQueue } from "../adapters/jobs/index.js";
import { PostgresStore, startThrowawayCluster, type ThrowawayCluster } from "../adapters/store/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { parseConfig } from "../config/index.js";
import { admissionJobKey, admissionPayload } from "./admission-jobs.js";

// The built CLI's `envforge worker` (npm test builds first) on a throwaway PostgreSQL cluster, admitting
// a real seed environment with the mechanical gates.

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
afterAll(() => cluster?.stop());

function startWorker(config: string, roles = "admission"): { child: ChildProcess; log: () => string; exited: Promise<unknown> } {
  let log = "";
  const child = spawn("node", [BIN, "worker", "--store", cluster.url, "--roles", roles, "--config", config], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  return { child, log: () => log, exited: new Promise((resolve) => child.on("exit", resolve)) };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe("envforge worker", () => {
  it("refuses to start without --store, and names unknown roles", () => {
    const none = spawnSync("node", [BIN, "worker"], { encoding: "utf8" });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/needs --store postgres:\/\//);
    const role = spawnSync("node", [BIN, "worker", "--store", cluster.url, "--roles", "admission,gardening"], { encoding: "utf8" });
    expect(role.status).toBe(2);
    expect(role.stderr).toMatch(/unknown role "gardening"; roles are admission, evolution/);
  });

  it("evolve --workers remote: the lineages evolve on a worker in the evolution's PostgreSQL schema", async () => {
    const namespace = `evolve${process.pid}`;
    const folder = mkdtempSync(join(tmpdir(), "envforge-worker-"));
    const config = join(folder, "config.json");
    // a missing model (the worker's own model.spec is what it samples with): no model runs, every attempt is a model_error
    const missing = join(folder, "missing.gguf");
    writeFileSync(config, JSON.stringify({ jobs: { namespace }, model: { spec: missing } }));
    const worker = startWorker(config, "evolution");
    try {
      await until(() => worker.log().includes("taking evolution jobs"), 60_000);
      const out = join(folder, "evolution");
      const local = spawnSync("node", [BIN, "evolve", "--from", "seeds", "--generations", "1", "--out", join(folder, "local"), "--model", missing, "--workers", "remote"], { encoding: "utf8" });
      expect(local.status).toBe(2);
      expect(local.stderr).toMatch(/--workers remote needs --store postgres:\/\//);
      const result = spawnSync("node", [BIN, "evolve", "--from", "seeds", "--generations", "1", "--out", out, "--model", missing, "--config", config, "--store", cluster.url, "--workers", "remote"], { encoding: "utf8", timeout: 300_000 });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stdout).toMatch(/0 generation\(s\) validated across 10 lineage\(s\)/);
      expect(result.stderr).toMatch(/10 lineage\(s\) enqueued as evolution jobs/);
      // spawnSync held this process: the worker's lines are read once the loop turns again
      await until(() => (worker.log().match(/evolution [0-9a-f]{12} done in/g) ?? []).length >= 10, 10_000);
      expect(worker.log().match(/evolution [0-9a-f]{12} done in/g), worker.log()).toHaveLength(10);
      const store = new PostgresStore(cluster.url, "run_evolution");
      try {
        const lineages = store.listLineages();
        expect(lineages).toHaveLength(10);
        for (const lineage of lineages) expect(store.listEvolutionAttempts(lineage.id).map((attempt) => attempt.outcome)).toEqual(["model_error", "model_error"]);
      } finally {
        store.close();
      }
      // the folder's store.json leads lineage show to the PostgreSQL store
      const show = spawnSync("node", [BIN, "lineage", "show", "number-guess", "--from", out], { encoding: "utf8" });
      expect(show.status, show.stderr).toBe(0);
      expect(show.stdout).toMatch(/attempts: 2 \(model_error 2\)/);
    } finally {
      if (worker.child.exitCode === null && worker.child.signalCode === null) process.kill(-worker.child.pid!, "SIGTERM");
      await worker.exited;
    }
  }, 400_000);

  it("a job cannot choose the worker's sandbox or make it read a file: the worker's own settings apply", async () => {
    const namespace = `hostile${process.pid}`;
    const folder = mkdtempSync(join(tmpdir(), "envforge-worker-"));
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ jobs: { namespace } }));
    const secret = join(folder, "secret.jsonl");
    writeFileSync(secret, "AWS_SECRET_ACCESS_KEY=do-not-leak\n");
    const seeds = loadSeedPackages();
    // the settings a hostile enqueuer writes: no jail, and a host file as the benchmark set and the rubric
    const hostile = parseConfig({ jobs: { namespace }, sandbox: { backend: "process", trustedCode: true }, admission: { benchmarkPath: secret, rubricPath: secret } });
    const payload = admissionPayload(seeds[1]!, seeds, hostile, {});
    const key = admissionJobKey(payload);
    const queue = await PgBossQueue.open(cluster.url, { namespace });
    const worker = startWorker(config);
    try {
      await queue.enqueue("admission", [{ key, payload }]);
      const outcome = (await queue.wait("admission", [key], { pollMs: 200 })).get(key);
      expect(outcome?.state, JSON.stringify(outcome)).toBe("done");
      expect((outcome as { result: { admitted: boolean } }).result.admitted).toBe(true);
      expect(JSON.stringify(outcome)).not.toContain("AWS_SECRET");
    } finally {
      if (worker.child.exitCode === null && worker.child.signalCode === null) process.kill(-worker.child.pid!, "SIGTERM");
      await worker.exited;
      await queue.close();
    }
  }, 120_000);

  it("a worker killed with SIGKILL mid-job: another worker runs the job again, its result is stored once and nothing is lost", async () => {
    const namespace = `kill${process.pid}`;
    const folder = mkdtempSync(join(tmpdir(), "envforge-worker-"));
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ jobs: { namespace, heartbeatSeconds: 10, retryLimit: 3, retryDelaySeconds: 0 } }));
    const seeds = loadSeedPackages();
    const payload = admissionPayload(seeds[0]!, seeds, parseConfig({ jobs: { namespace } }), {});
    const key = admissionJobKey(payload);
    const queue = await PgBossQueue.open(cluster.url, { namespace, heartbeatSeconds: 10, superviseIntervalSeconds: 2 });
    const first = startWorker(config);
    let second: ReturnType<typeof startWorker> | undefined;
    try {
      await until(() => first.log().includes("taking admission jobs"), 60_000);
      expect(await queue.enqueue("admission", [{ key, payload }])).toBe(1);
      await until(() => first.log().includes("started"), 60_000);
      expect(first.log()).toContain(`admission ${key.slice(0, 12)} started`);
      process.kill(-first.child.pid!, "SIGKILL");
      await first.exited;
      expect(first.log()).not.toContain("done in");
      second = startWorker(config);
      const outcomes = await queue.wait("admission", [key], { pollMs: 200 });
      const outcome = outcomes.get(key);
      expect(outcome?.state, JSON.stringify(outcome)).toBe("done");
      expect((outcome as { result: { admitted: boolean } }).result.admitted).toBe(true);
      await until(() => second!.log().includes("done in"), 10_000);
      expect(second.log()).toMatch(/started \(retry 1\)/);
      const results = new JobResults(cluster.url, namespace);
      expect([...results.find("admission", [key, `${key}-other`]).keys()]).toEqual([key]);
      results.close();
    } finally {
      const stop = (child: ChildProcess, signal: NodeJS.Signals) => {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
      };
      stop(first.child, "SIGKILL");
      if (second !== undefined) {
        stop(second.child, "SIGTERM");
        await second.exited;
      }
      await queue.close();
    }
  }, 180_000);
});
