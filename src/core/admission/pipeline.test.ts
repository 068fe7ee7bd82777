import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { pass, reject, type EnvPackage } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { admit, admitMany, buildGates } from "./pipeline.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";

// Pure tests of the pipeline's control flow with stand-in gates (no sandbox is touched).

const candidate = {} as EnvPackage;
const context = {} as AdmissionContext;
const calls: string[] = [];
function gate(name: AdmissionGate["name"], outcome: "pass" | "reject" | "throw"): AdmissionGate {
  return {
    name,
    usesModel: false,
    async check() {
      calls.push(name);
      if (outcome === "throw") throw new Error("model down");
      return outcome === "pass" ? pass(name) : reject(name, "load_failed", "no");
    },
  };
}

describe("admission pipeline", () => {
  it("runs gates in order, stops at the first reject and times each gate with the injected clock", async () => {
    calls.length = 0;
    let now = 0;
    const clock = () => (now += 5);
    const result = await admit(candidate, [gate("static", "pass"), gate("oracle", "reject"), gate("hint", "pass")], context, { clock });
    expect(calls).toEqual(["static", "oracle"]);
    expect(result.admitted).toBe(false);
    expect(result.verdicts.map((verdict) => verdict.status)).toEqual(["pass", "reject"]);
    expect(result.timingsMs).toEqual({ static: 5, oracle: 5 });
  });

  it("rejects an exact copy of a pool entry before any gate, whatever gates are configured (novelty skipped too)", async () => {
    calls.length = 0;
    const original = loadSeedPackages()[0] as EnvPackage;
    const copy = { ...original, manifest: { ...original.manifest, provenance: { ...original.manifest.provenance, origin: "designer" as const } } };
    const result = await admit(copy, [gate("static", "pass")], { ...context, pool: [original] });
    expect(calls).toEqual([]);
    expect(result).toMatchObject({ admitted: false, verdicts: [{ status: "reject", gate: "novelty", reason: "exact_copy" }] });
    // the pool entry that is the candidate object itself is no copy (a seed admitted against the seeds)
    expect((await admit(original, [gate("static", "pass")], { ...context, pool: [original] })).admitted).toBe(true);
  });

  it("turns an exception inside a gate into a gate_error reject", async () => {
    const result = await admit(candidate, [gate("self-review", "throw")], context);
    expect(result.verdicts).toEqual([{ status: "reject", gate: "self-review", reason: "gate_error", message: "model down" }]);
  });

  it("builds the configured gates in order without the skipped ones", () => {
    expect(buildGates(parseConfig({}).admission).map((entry) => entry.name)).toEqual([
      "static", "executable", "deterministic", "oracle", "negative-controls", "scorer-contract", "hint", "levels", "novelty", "decontamination", "self-review", "calibration",
    ]);
    const chosen = buildGates(parseConfig({ admission: { gates: ["hint", "static", "calibration"], skip: ["calibration"] } }).admission);
    expect(chosen.map((entry) => [entry.name, entry.usesModel])).toEqual([["hint", false], ["static", false]]);
  });

  it("admits many candidates with at most `concurrency` in flight, results in input order", async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: AdmissionGate = {
      name: "static",
      usesModel: false,
      async check(pkg) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return (pkg as unknown as { ok: boolean }).ok ? pass("static") : reject("static", "too_large", "no");
      },
    };
    const candidates = [true, false, true, true, false].map((ok) => ({ ok }) as unknown as EnvPackage);
    const results = await admitMany(candidates, [slow], context, 2);
    expect(results.map((result) => result.admitted)).toEqual([true, false, true, true, false]);
    expect(peak).toBe(2);
  });
});
