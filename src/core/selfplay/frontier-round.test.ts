import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { NoopTrainer } from "../../adapters/trainer/index.js";
import { parseConfig } from "../../config/index.js";
import { packageId } from "../../spec/index.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { lineageStore } from "../../testing/lineage-fixtures.js";
import { runRound } from "./round.js";

// The self-play round sampling through the frontier scheduler (config solver.sampling = "frontier").
// The Solver is a SCRIPTED FAKE model that always answers 42 (so every probe wins); sandbox and store are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000 } });
afterAll(() => sandbox.close());

describe("self-play round with frontier sampling", () => {
  it("probes the frontier with 8 rollouts, releases at ≥ 6/8 and plays the frontier environments", async () => {
    const store = lineageStore(1);
    const child = samplePackage(1);
    const config = parseConfig({ plays: 1, solver: { environments: 3, maxTurns: 1, sampling: "frontier" }, designer: { designs: 0 } });
    const model = new ScriptedModel([], () => "42");
    await runRound(1, { config, model, sandbox, store, trainer: new NoopTrainer(), corpus: [], gates: [], admission: testAdmissionResources(), progress: {} });
    expect(store.listFrontierProbes()).toEqual([{ lineageId: "lin-0", generation: 0, round: 1, rollouts: 8, wins: 8, released: true }]);
    // the solver phase played only the frontier environment (generation 1), once per hint condition
    const played = store.listEpisodes(1).filter((record) => record.role === "solver");
    expect(played.map((record) => [record.environmentId, record.hint])).toEqual([[packageId(child), false], [packageId(child), true]]);
    // 8 probe rollouts + 2 solver-phase episodes reached the model
    expect(model.prompts).toHaveLength(10);
  }, 60_000);
});
