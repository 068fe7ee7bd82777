import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError } from "../../spec/index.js";
import { PostgresStore } from "./postgres-store.js";
import { evalStoreContract } from "./eval-store.contract.js";
import { PostgresEvalStore } from "./postgres-eval-store.js";
import { storeContract, samplePackage } from "./store.contract.js";
import { startThrowawayCluster, type ThrowawayCluster } from "./throwaway-cluster.js";
import { packageId } from "../../spec/index.js";

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
afterAll(() => cluster?.stop());

/** A fresh run schema per store, so the contract's tests share the server and nothing else. */
const freshSchema = () => `run_${randomUUID().slice(0, 8)}`;

storeContract("postgres", () => new PostgresStore(cluster.url, freshSchema()));
evalStoreContract("postgres", () => new PostgresEvalStore(cluster.url, freshSchema()));

describe("PostgresStore", () => {
  it("keeps a run's memory across connections, and keeps runs apart by schema", () => {
    const schema = freshSchema();
    const first = new PostgresStore(cluster.url, schema);
    first.setMeta("config", { rounds: 2 });
    const pkg = samplePackage(7);
    expect(first.addEnvironment({ id: packageId(pkg), package: pkg, round: 1, scores: null })).toBe(true);
    first.close();
    const again = new PostgresStore(cluster.url, schema);
    expect(again.getMeta("config")).toEqual({ rounds: 2 });
    expect(again.listEnvironments().map((record) => record.id)).toEqual([packageId(pkg)]);
    const other = new PostgresStore(cluster.url, freshSchema());
    expect(other.getMeta("config")).toBeUndefined();
    expect(other.listEnvironments()).toEqual([]);
    again.close();
    other.close();
  });

  it("reports a server that cannot be reached as a StoreError naming it without its password", () => {
    const url = "postgres://envforge:secret@127.0.0.1:1/postgres";
    expect(() => new PostgresStore(url, freshSchema())).toThrowError(StoreError);
    expect(() => new PostgresStore(url, freshSchema())).toThrowError(/postgres:\/\/envforge:\*\*\*@127\.0\.0\.1:1\/postgres/);
  });

  it("refuses a store written by a newer envforge, and changes nothing", () => {
    const schema = freshSchema();
    const store = new PostgresStore(cluster.url, schema);
    store.setMeta("k", 1);
    store.close();
    const raw = new PostgresStore(cluster.url, schema);
    // the only way to get a newer schema here is to write its version row as a newer envforge would
    (raw as unknown as { connection: { execute(q: { sql: string; parameters: unknown[] }): void } }).connection.execute({
      sql: "UPDATE envforge_schema SET version = 99 WHERE component = 'run'",
      parameters: [],
    } as never);
    raw.close();
    expect(() => new PostgresStore(cluster.url, schema)).toThrowError(/version 99, newer than this envforge knows/);
  });

  it("carries on after the server restarts: the lost connection is opened again", () => {
    const store = new PostgresStore(cluster.url, freshSchema());
    store.setMeta("before", 1);
    cluster.restart();
    expect(store.getMeta("before")).toBe(1);
    store.setMeta("after", 2);
    expect(store.getMeta("after")).toBe(2);
    store.close();
  }, 60_000);

  it("stores two processes' concurrent inserts of the same design once", async () => {
    // two connections (as two workers) write the same design: one row, one environment
    const schema = freshSchema();
    const a = new PostgresStore(cluster.url, schema);
    const b = new PostgresStore(cluster.url, schema);
    const pkg = samplePackage(3);
    const environment = { id: packageId(pkg), package: pkg, round: 1, scores: null };
    const design = { round: 1, index: 0, promptHash: "p", corpusDocumentIds: [], completion: "c", verdicts: [], environmentId: environment.id, reward: 1 };
    a.saveDesign(design, { environment, episodes: [] });
    b.saveDesign(design, { environment, episodes: [] });
    expect(a.listDesigns(1)).toHaveLength(1);
    expect(b.listEnvironments()).toHaveLength(1);
    a.close();
    b.close();
  });
});
