import { availableParallelism, loadavg } from "node:os";
import { parseConfig } from "../config/index.js";
import { admissionConcurrency, admit, admitMany, buildGates, type AdmissionContext } from "../core/admission/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { admissionResources } from "./admission-resources.js";
import { percentile } from "../support/percentile.js";

/** Flags of `envforge bench admission`. */
export interface BenchAdmissionFlags {
  /** Passes over the ten seeds. @default 3 */
  readonly repeats?: number;
  /** Benchmark texts for the decontamination gate (`.jsonl` or folder); none when absent. */
  readonly benchmarks?: string;
}

/**
 * `envforge bench admission`: wall time of the mechanical gates (1–7, 9, 10:
 * everything but self-review and calibration) per candidate, over the ten
 * seed environments (each checked against the other nine for novelty), one at
 * a time for `repeats` passes after one warm-up pass that also fills the pool's
 * fingerprint cache; then one pass admitted concurrently up to
 * `admission.concurrency`. Prints p50/p90/max per candidate, p50 per gate, and
 * the concurrent throughput, with the machine's load average.
 */
export async function benchAdmissionCommand(flags: BenchAdmissionFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const config = parseConfig({ admission: { skip: ["self-review", "calibration"] } });
  const sandbox = new BwrapSandbox();
  const seeds = loadSeedPackages();
  const gates = buildGates(config.admission);
  const context: AdmissionContext = { ...admissionResources(config, flags.benchmarks ?? null), sandbox, settings: config.admission, pool: seeds };
  try {
    for (const pkg of seeds) await admit(pkg, gates, { ...context });
    const totals: number[] = [];
    const perGate = new Map<string, number[]>();
    let rejected = 0;
    for (let pass = 0; pass < (flags.repeats ?? 3); pass += 1) {
      for (const pkg of seeds) {
        const started = performance.now();
        // a fresh context per admission, so nothing but the pool's fingerprints is reused
        const result = await admit(pkg, gates, { ...context });
        totals.push(performance.now() - started);
        if (!result.admitted) rejected += 1;
        for (const [gate, ms] of Object.entries(result.timingsMs)) perGate.set(gate, [...(perGate.get(gate) ?? []), ms]);
      }
    }
    const concurrency = admissionConcurrency(config.admission);
    const started = performance.now();
    await admitMany(seeds, gates, { ...context }, concurrency);
    const concurrentMs = performance.now() - started;
    const round = (value: number) => Math.round(value);
    write(`admission bench: gates ${gates.map((gate) => gate.name).join(", ")}; ${context.benchmarkTexts?.length ?? 0} benchmark texts\n`);
    write(`machine: ${availableParallelism()} cores, load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}\n`);
    write(`per candidate (${totals.length} admissions of the 10 seeds, sequential): p50 ${round(percentile(totals, 0.5))} ms, p90 ${round(percentile(totals, 0.9))} ms, max ${round(Math.max(...totals))} ms; ${rejected} rejected\n`);
    write(`per gate p50: ${[...perGate].map(([gate, values]) => `${gate} ${round(percentile(values, 0.5))} ms`).join(", ")}\n`);
    write(`concurrent (${concurrency} at a time): 10 candidates in ${round(concurrentMs)} ms (${(10_000 / concurrentMs).toFixed(2)} candidates/s)\n`);
    return rejected === 0 ? 0 : 1;
  } finally {
    await sandbox.close();
  }
}
