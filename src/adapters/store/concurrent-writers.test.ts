import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../spec/index.js";
import { PostgresStore } from "./postgres-store.js";
import { SqliteStore } from "./sqlite-store.js";
import { startThrowawayCluster, type ThrowawayCluster } from "./throwaway-cluster.js";

// Several processes write one run's store at once, as the workers and orchestrators of a deployment do:
// the same designs (with their environments and episodes), lineages and probes, and one claim of the run.
// The writers are the built store (npm test builds first), one node process each.

const DIST = fileURLToPath(new URL("../../../dist/", import.meta.url));
const WRITER = `
const { PostgresStore, SqliteStore } = await import(process.env.DIST + "adapters/store/index.js");
const { packageId } = await import(process.env.DIST + "spec/index.js");
const store = process.env.BACKEND === "postgres" ? new PostgresStore(process.env.URL, process.env.SCHEMA) : new SqliteStore(process.env.URL);
const me = process.env.WRITER;
// every writer starts at the same moment, after all have loaded
while (Date.now() < Number(process.env.GO)) await new Promise((resolve) => setTimeout(resolve, 5));
const claimed = store.claimMeta("owner", me);
const pkg = (variant) => ({ manifest: { schemaVersion: 1, name: "w" + variant, provenance: { origin: "designer", parentId: null, generation: 0 } },
  envSource: "class E: pass  # " + variant, oracleSource: "def act(env, observation): return ''" });
for (let index = 0; index < 40; index += 1) {
  const admitted = index % 4 === 0;
  const environment = admitted ? { id: packageId(pkg(index)), package: pkg(index), round: 1, scores: null } : null;
  const episodes = admitted ? [0, 1].map((seed) => ({ round: 1, environmentId: environment.id, role: "calibration", hint: seed === 1, policyVersion: 0,
    episode: { seed, initialObservation: "o", turns: [], return: 0, won: false, terminated: true, truncated: false } })) : [];
  store.saveDesign({ round: 1, index, promptHash: "p", corpusDocumentIds: [], completion: "by " + me, verdicts: [], environmentId: environment?.id ?? null, reward: 0 },
    admitted ? { environment, episodes } : undefined);
  store.addLineage({ id: "lin-" + (index % 5), seedId: "s", seedName: "s", seed: pkg(0), sequence: { steps: [], source: "manifest" }, difficulty: {}, createdAt: "t" });
  store.saveFrontierProbe({ lineageId: "lin-" + (index % 5), round: index, generation: 0, wins: 1, rollouts: 2 });
}
store.close();
process.stdout.write(JSON.stringify({ claimed }));
`;

function writer(backend: string, url: string, schema: string, id: number, go: number): Promise<{ claimed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", WRITER], { env: { ...process.env, DIST, BACKEND: backend, URL: url, SCHEMA: schema, WRITER: `writer-${id}`, GO: String(go) } });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as { claimed: boolean }) : reject(new Error(`writer ${id} exited ${code}: ${err}`))));
  });
}

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
const folders: string[] = [];
afterAll(() => {
  cluster?.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe.each([
  ["sqlite", (): string => join(folders[folders.push(mkdtempSync(join(tmpdir(), "envforge-writers-"))) - 1]!, "envforge.db"), (location: string): Store => new SqliteStore(location)],
  ["postgres", (): string => "run_writers", (schema: string): Store => new PostgresStore(cluster.url, schema)],
] as const)("four processes writing one %s store at once", (backend, locate, open) => {
  it("store every design, environment, episode, lineage and probe once, and one of them claims the run", async () => {
    const location = locate();
    // the schema (or file) exists before the writers race on its rows
    open(location).close();
    const url = backend === "postgres" ? cluster.url : location;
    const go = Date.now() + 2_000;
    const results = await Promise.all([0, 1, 2, 3].map((id) => writer(backend, url, location, id, go)));
    expect(results.filter((result) => result.claimed)).toHaveLength(1);
    const store = open(location);
    try {
      const designs = store.listDesigns(1);
      expect(designs.map((design) => design.index)).toEqual(Array.from({ length: 40 }, (_, index) => index));
      const environments = store.listEnvironments();
      expect(environments).toHaveLength(10);
      expect(new Set(environments.map((record) => record.id)).size).toBe(10);
      // each admitted design's episodes come from the writer whose design was stored, once
      expect(store.listEpisodes(1)).toHaveLength(20);
      expect(store.listLineages().map((lineage) => lineage.id)).toHaveLength(5);
      expect(store.listFrontierProbes()).toHaveLength(40);
      expect(String(store.getMeta("owner"))).toMatch(/^writer-[0-3]$/);
    } finally {
      store.close();
    }
  }, 120_000);
});
