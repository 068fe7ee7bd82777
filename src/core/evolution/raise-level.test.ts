import { afterAll, describe, expect, it } from "vitest";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteStore } from "../../adapters/store/index.js";
import { parseConfig } from "../../config/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { ScriptedRoleModel } from "../../testing/scripted-role-model.js";
import { unwrap } from "../../adapters/sandbox/sandbox.contract.js";
import { lineageIdFor, runEvolution } from "./lineage-runner.js";
import { raisedLevelChild } from "./raise-level.js";
import { evolutionGates, evolutionSettingsFromConfig } from "./settings.js";

// Direction `level` with a SCRIPTED FAKE model that only answers the seed's sequence extraction
// (the analyst): raising the level calls no model; the sandbox, store and admission gates are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 3000 } });
afterAll(() => sandbox.close());
// level L adds L + 2 numbers, 4 levels
const parent = loadPackageFolder(new URL("../../../fixtures/levelled-envs/level-sum", import.meta.url).pathname);
const provenance = { origin: "evolution" as const, parentId: null, generation: 1, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: "2026-12-03T00:00:00.000Z" };

describe("raise the level (evolution direction `level`)", () => {
  it("builds a child whose level k is the parent's level k + 1, with one level fewer", async () => {
    const child = raisedLevelChild(parent, provenance);
    expect(child?.manifest.levels?.count).toBe(3);
    const first = async (pkg: typeof parent, seed: number, level?: number) => {
      const session = unwrap(await sandbox.open({ envSource: pkg.envSource, oracleSource: null }));
      try {
        return unwrap(await session.reset(seed, level));
      } finally {
        await session.close();
      }
    };
    expect(await first(child!, 5, 0)).toBe(await first(parent, 5, 1));
    expect(await first(child!, 5, 2)).toBe(await first(parent, 5, 3));
    // a two-level parent's child is the parent's top level as a family of one level
    const two = { ...parent, manifest: { ...parent.manifest, levels: { count: 2, description: "more" } } };
    const top = raisedLevelChild(two, provenance);
    expect(top?.manifest.levels?.count).toBe(1);
    expect(await first(top!, 7, 0)).toBe(await first(parent, 7, 1));
    expect(raisedLevelChild(top!, provenance)).toBeNull();
  });

  it("evolves a levelled seed by raising its level, admits each child, and stops at the top level with no_higher_level", async () => {
    const store = new SqliteStore(":memory:");
    const model = new ScriptedRoleModel({ analyst: ['[{"scenario": "adding numbers", "skill": "arithmetic"}]'] });
    const settings = evolutionSettingsFromConfig(
      parseConfig({ evolution: { generations: 4, direction: "level", effort: "low", attemptsPerGeneration: 1, validationSeeds: 2 }, admission: { seeds: 2, skip: ["self-review", "novelty"] } }),
    );
    const gates = evolutionGates(parseConfig({ admission: { skip: ["self-review", "novelty"] } }).admission);
    const outcomes = await runEvolution([parent], { model, sandbox, store, corpus: [], gates, admission: testAdmissionResources(), rubrics: { plan: [], child: [] } }, settings);
    const id = lineageIdFor(parent);
    expect(outcomes[0]).toMatchObject({ lineageId: id });
    const generations = store.listGenerations(id);
    // 4 levels: children of 3 levels, 2 levels and 1 level; the fourth generation has nothing to raise
    expect(generations.map((generation) => generation.direction)).toEqual(["level", "level", "level"]);
    const levels = generations.map((generation) => store.listEnvironments().find((record) => record.id === generation.environmentId)?.package.manifest.levels?.count);
    expect(levels).toEqual([3, 2, 1]);
    const last = store.listEvolutionAttempts(id).at(-1);
    expect(last).toMatchObject({ generation: 4, outcome: "admission_rejected", admission: [{ gate: "level", reason: "no_higher_level" }] });
    store.close();
  });
});
