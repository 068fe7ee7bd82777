import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore, SqliteStore, startThrowawayCluster, redactedUrl } from "../adapters/store/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { packageId, type DesignRecord, type EpisodeRecord, type Store } from "../spec/index.js";
import { percentile } from "../support/percentile.js";

/** Flags of `envforge bench store`. */
export interface BenchStoreFlags {
  readonly json?: boolean;
  /** Writes of each kind per backend. @default 500 */
  readonly writes?: number;
  /** A PostgreSQL URL to measure instead of a throwaway cluster on this machine. */
  readonly store?: string;
}

/** Latency of one kind of write on one backend, in milliseconds. */
export interface WriteLatency {
  readonly backend: "sqlite" | "postgres";
  readonly write: "setMeta" | "saveDesign (rejected)" | "saveDesign (admitted, 16 episodes)";
  readonly writes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * `envforge bench store`: the store's write latency (p50/p99) on SQLite (a WAL file in the temporary
 * folder) and PostgreSQL (a throwaway cluster here, `fsync` off, or `--store URL`), for the writes a
 * run makes: a metadata value, a rejected design, and an admitted design with its environment and
 * 16 calibration episodes in one transaction. Recorded in docs/benchmarks/scale-out.md.
 */
export async function benchStoreCommand(flags: BenchStoreFlags): Promise<number> {
  const writes = flags.writes ?? 500;
  const folder = mkdtempSync(join(tmpdir(), "envforge-bench-store-"));
  const cluster = flags.store === undefined ? await startThrowawayCluster() : null;
  const url = flags.store ?? cluster!.url;
  const figures: WriteLatency[] = [];
  try {
    const sqlite = new SqliteStore(join(folder, "envforge.db"));
    figures.push(...measure("sqlite", sqlite, writes));
    sqlite.close();
    const postgres = new PostgresStore(url, `bench_${process.pid}_${Date.now()}`);
    figures.push(...measure("postgres", postgres, writes));
    postgres.close();
  } finally {
    cluster?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify({ postgres: cluster === null ? redactedUrl(url) : "throwaway cluster on 127.0.0.1 (fsync off)", figures }, null, 2)}\n`);
  } else {
    process.stdout.write(`store write latency, ${writes} writes of each kind (PostgreSQL: ${cluster === null ? redactedUrl(url) : "a throwaway cluster on this machine, fsync off"})\n`);
    process.stdout.write("| backend | write | p50 ms | p99 ms |\n| --- | --- | --- | --- |\n");
    for (const figure of figures) process.stdout.write(`| ${figure.backend} | ${figure.write} | ${figure.p50Ms.toFixed(3)} | ${figure.p99Ms.toFixed(3)} |\n`);
  }
  return 0;
}

function measure(backend: WriteLatency["backend"], store: Store, writes: number): WriteLatency[] {
  const seed = loadSeedPackages()[0]!;
  const timed = (write: WriteLatency["write"], run: (index: number) => void): WriteLatency => {
    const samples: number[] = [];
    for (let index = 0; index < writes; index += 1) {
      const started = performance.now();
      run(index);
      samples.push(performance.now() - started);
    }
    return { backend, write, writes, p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99) };
  };
  const design = (index: number, environmentId: string | null): DesignRecord => ({
    round: 1,
    index,
    promptHash: "bench",
    corpusDocumentIds: ["doc-1", "doc-2"],
    completion: "x".repeat(4_000),
    verdicts: [{ status: "pass", gate: "parse" }],
    environmentId,
    reward: 0.5,
    policyVersion: 1,
  });
  const episode = (environmentId: string, seed: number): EpisodeRecord => ({
    round: 1,
    environmentId,
    role: "calibration",
    hint: seed % 2 === 0,
    policyVersion: 1,
    episode: { seed, initialObservation: "o".repeat(300), turns: Array.from({ length: 6 }, () => ({ action: "a".repeat(40), observation: "o".repeat(200), reward: 0 })), return: 0, won: false, terminated: true, truncated: false },
  });
  return [
    timed("setMeta", (index) => store.setMeta(`bench-${index % 10}`, { index, seconds: { solver: 1.5, designer: 2.5 } })),
    timed("saveDesign (rejected)", (index) => store.saveDesign(design(index, null))),
    timed("saveDesign (admitted, 16 episodes)", (index) => {
      // a distinct environment per write: the seed's package with its name changed
      const pkg = { ...seed, manifest: { ...seed.manifest, name: `${seed.manifest.name}-${index}` } };
      const id = packageId(pkg);
      store.saveDesign(design(writes + index, id), {
        environment: { id, package: pkg, round: 1, scores: { plays: 8, winRateNoHint: 0.25, winRateHint: 0.5, meanReturnNoHint: 0.25, meanReturnHint: 0.5, regret: 0.25, designerReward: 0.4 } },
        episodes: Array.from({ length: 16 }, (_, play) => episode(id, play)),
      });
    }),
  ];
}
