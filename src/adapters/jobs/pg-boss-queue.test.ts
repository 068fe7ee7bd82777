import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../spec/index.js";
import { startThrowawayCluster, type ThrowawayCluster } from "../store/index.js";
import { JobResults } from "./job-results.js";
import { PgBossQueue } from "./pg-boss-queue.js";

// Control flow of the queue on a real PostgreSQL (throwaway cluster) with pg-boss; the handlers are
// scripted (they count, fail on purpose, or wait), which is what these tests are about. The kill -9 of a
// real worker is in src/cli/worker.test.ts.

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
afterAll(() => cluster?.stop());

let namespaces = 0;
/** A namespace of its own per test: its queue and results are no other test's. */
const fresh = () => `t${process.pid}_${namespaces++}`;

describe("PgBossQueue", () => {
  it("runs enqueued jobs, stores each result once, and does not enqueue a key again once its result is stored", async () => {
    const queue = await PgBossQueue.open(cluster.url, { worker: "test/1", namespace: fresh() });
    const ran: string[] = [];
    await queue.work("admission", async (job: Job) => {
      ran.push(job.key);
      return { doubled: (job.payload as { n: number }).n * 2 };
    }, { concurrency: 2 });
    expect(await queue.enqueue("admission", [1, 2, 3].map((n) => ({ key: `a-${n}`, payload: { n } })))).toBe(3);
    // queued or running: the exclusive policy refuses the same key again
    expect(await queue.enqueue("admission", [{ key: "a-1", payload: { n: 1 } }])).toBeLessThanOrEqual(1);
    const seen: string[] = [];
    const outcomes = await queue.wait("admission", ["a-1", "a-2", "a-3"], { onOutcome: (outcome) => seen.push(outcome.key), pollMs: 100 });
    expect(["a-1", "a-2", "a-3"].map((key) => outcomes.get(key))).toMatchObject([1, 2, 3].map((n) => ({ state: "done", result: { doubled: n * 2 } })));
    expect(seen.sort()).toEqual(["a-1", "a-2", "a-3"]);
    expect(outcomes.get("a-2")).toMatchObject({ state: "done", worker: "test/1" });
    // stored: enqueueing the same keys again enqueues nothing, and nothing runs again
    expect(await queue.enqueue("admission", [1, 2, 3].map((n) => ({ key: `a-${n}`, payload: { n } })))).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(ran.filter((key) => key === "a-1")).toHaveLength(1);
    await queue.close();
  }, 60_000);

  it("retries a failing job with its attempt number, and reports one that fails every retry", async () => {
    const queue = await PgBossQueue.open(cluster.url, { retryLimit: 1, retryDelaySeconds: 0, namespace: fresh() });
    const attempts = new Map<string, number[]>();
    await queue.work("admission", async (job: Job) => {
      attempts.set(job.key, [...(attempts.get(job.key) ?? []), job.attempt]);
      if (job.key === "flaky" && job.attempt === 0) throw new Error("first run fails");
      if (job.key === "broken") throw new Error("always fails");
      return "ok";
    }, { concurrency: 1 });
    await queue.enqueue("admission", [{ key: "flaky", payload: {} }, { key: "broken", payload: {} }]);
    const outcomes = await queue.wait("admission", ["flaky", "broken"], { pollMs: 100 });
    expect(outcomes.get("flaky")).toMatchObject({ state: "done", result: "ok" });
    expect(attempts.get("flaky")).toEqual([0, 1]);
    expect(outcomes.get("broken")).toEqual({ state: "failed", key: "broken", error: "always fails" });
    expect(attempts.get("broken")).toEqual([0, 1]);
    await queue.close();
  }, 90_000);

  it("a job whose result an earlier run stored (its worker died before acknowledging) is acknowledged without running again", async () => {
    const namespace = fresh();
    const queue = await PgBossQueue.open(cluster.url, { namespace });
    await queue.enqueue("admission", [{ key: "done-before", payload: {} }]);
    // the earlier run: it stored its result, then died before pg-boss heard of it
    const earlier = new JobResults(cluster.url, namespace);
    expect(earlier.store("admission", "done-before", { by: "earlier run" }, 2, "dead/1")).toBe(true);
    const ran: string[] = [];
    await queue.work("admission", async (job: Job) => void ran.push(job.key), { concurrency: 1 });
    const outcomes = await queue.wait("admission", ["done-before"], { pollMs: 100 });
    expect(outcomes.get("done-before")).toMatchObject({ state: "done", result: { by: "earlier run" }, worker: "dead/1" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ran).toEqual([]);
    earlier.close();
    await queue.close();
  }, 60_000);

  it("two workers racing on one key store one result: the first stored wins and the other is dropped", async () => {
    const namespace = fresh();
    const first = new JobResults(cluster.url, namespace);
    const second = new JobResults(cluster.url, namespace);
    expect(first.store("admission", "race", { by: "first" }, 1, "w1")).toBe(true);
    expect(second.store("admission", "race", { by: "second" }, 1, "w2")).toBe(false);
    expect(second.find("admission", ["race"]).get("race")).toMatchObject({ result: { by: "first" }, worker: "w1" });
    // two queues (two worker processes) taking from one queue: every job runs on exactly one of them
    const a = await PgBossQueue.open(cluster.url, { worker: "a", namespace });
    const b = await PgBossQueue.open(cluster.url, { worker: "b", namespace });
    const runs: string[] = [];
    for (const queue of [a, b]) await queue.work("admission", async (job: Job) => {
      runs.push(job.key);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }, { concurrency: 2 });
    const keys = Array.from({ length: 12 }, (_, index) => `r-${index}`);
    await a.enqueue("admission", keys.map((key) => ({ key, payload: {} })));
    const outcomes = await b.wait("admission", keys, { pollMs: 100 });
    expect([...outcomes.values()].every((outcome) => outcome.state === "done")).toBe(true);
    expect(runs.sort()).toEqual([...keys].sort());
    // both took part (pg-boss claims with SKIP LOCKED: no job is claimed twice)
    expect(new Set([...outcomes.values()].map((outcome) => (outcome.state === "done" ? outcome.worker : "")))).toEqual(new Set(["a", "b"]));
    await a.close();
    await b.close();
    first.close();
    second.close();
  }, 60_000);
});
