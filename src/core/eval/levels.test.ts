import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadPackageFolders } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteEvalStore } from "../../adapters/store/index.js";
import { ConfigError, LevelOutOfRangeError, packageId, type EnvPackage, type ItemResult } from "../../spec/index.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { compareEvaluations, comparisonWarnings } from "./compare.js";
import type { PlannedEnvironment } from "./environment-items.js";
import { heldOutSeeds } from "./heldout-seeds.js";
import { levelsOf, parseLevelSelection } from "./levels.js";
import { runEvaluation, type EnvironmentSuitePlan } from "./run-evaluation.js";
import { summarizeEvaluation } from "./summarize.js";

// fixtures/levelled-envs: level-sum (four levels; level L adds L + 2 numbers) and one-level-product
// (no levels). The sandbox is real (bubblewrap); the model is the SCRIPTED FAKE, which sums up to
// three numbers right and answers 0 to more (so levels 0 and 1 win, 2 and 3 lose) and multiplies
// right: it tests the control flow of levelled evaluation, not a model.
const packages = loadPackageFolders(fileURLToPath(new URL("../../../fixtures/levelled-envs", import.meta.url)));
const byName = (name: string) => packages.find((pkg) => pkg.manifest.name === name) as EnvPackage;
const levelSum = byName("level-sum");
const product = byName("one-level-product");

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
const folder = mkdtempSync(join(tmpdir(), "envforge-eval-levels-"));
afterAll(async () => {
  await sandbox.close();
  rmSync(folder, { recursive: true, force: true });
});

function scriptedSolver(): ScriptedModel {
  return new ScriptedModel([], (messages) => {
    const content = messages[0]?.content ?? "";
    const sum = /Add these numbers: ([\d +]+)\./.exec(content)?.[1]?.split(" + ").map(Number);
    if (sum !== undefined) return sum.length <= 3 ? String(sum.reduce((total, term) => total + term, 0)) : "0";
    const factors = /Multiply: (\d) x (\d)\./.exec(content);
    return factors === null ? "no idea" : String(Number(factors[1]) * Number(factors[2]));
  });
}

describe("eval --levels: the level list", () => {
  it("parses all or comma-separated integers, and refuses anything else with a ConfigError", () => {
    expect(parseLevelSelection("all")).toBe("all");
    expect(parseLevelSelection("5, 0,2,2")).toEqual([0, 2, 5]);
    expect(parseLevelSelection("-1")).toEqual([-1]);
    for (const bad of ["x", "", "0,,2", "1.5", "0,two"]) expect(() => parseLevelSelection(bad)).toThrowError(ConfigError);
    expect(() => parseLevelSelection("x")).toThrowError('--levels "x": "x" is not a level; give comma-separated integers (e.g. 0,2,5) or all');
  });

  it("a levelled environment must have every listed level (LevelOutOfRangeError naming the range); one of one level plays 0 and skips the others", () => {
    expect(levelsOf(levelSum.manifest, "all")).toEqual({ levels: [0, 1, 2, 3], skipped: [] });
    expect(levelsOf(levelSum.manifest, [0, 2])).toEqual({ levels: [0, 2], skipped: [] });
    for (const level of [-1, 4, 99]) {
      expect(() => levelsOf(levelSum.manifest, [0, level])).toThrowError(new LevelOutOfRangeError("level-sum", level, 4));
      expect(() => levelsOf(levelSum.manifest, [level])).toThrowError(`level ${level} is outside level-sum's levels: 0..3`);
    }
    expect(levelsOf(product.manifest, "all")).toEqual({ levels: [0], skipped: [] });
    expect(levelsOf(product.manifest, [0, 2, 5])).toEqual({ levels: [0], skipped: [2, 5] });
    expect(levelsOf(product.manifest, [3])).toEqual({ levels: [], skipped: [3] });
    expect(() => levelsOf(product.manifest, [-1, 0])).toThrowError("level -1 is outside one-level-product's levels: it declares one level, 0");
  });
});

describe("runEvaluation at levels", () => {
  const planned = (pkg: EnvPackage, levels?: readonly number[]): PlannedEnvironment => ({
    id: packageId(pkg),
    package: pkg,
    seeds: heldOutSeeds(packageId(pkg), 3, 0),
    ...(levels === undefined ? {} : { levels }),
  });
  const settings = { questions: { maxTokens: 8, temperature: 0, seed: 0 }, episodes: { maxTurns: 1, maxTokens: 8, temperature: 0, concurrency: 2 }, generationTimeoutMs: 2000 };
  const record = (id: string) => ({ id, model: "scripted-fake", checkpoint: null, suiteVersion: "test", plan: {}, createdAt: "2026-12-03T00:00:00.000Z" });

  it("plays every seed at every planned level, stores each item's level, reports the win rate per level with intervals, and resumes", async () => {
    const store = new SqliteEvalStore(join(folder, "eval.db"));
    const suite: EnvironmentSuitePlan = { kind: "environments", name: "envs:levelled", environments: [planned(levelSum, [0, 1, 2, 3]), planned(product, [0])] };
    let started: [number, number] | null = null;
    const items = await runEvaluation({ ...settings, record: record("levels-a"), store, model: scriptedSolver(), sandbox, suites: [suite], progress: { started: (total, done) => (started = [total, done]) } });
    expect(started).toEqual([3 * 4 + 3, 0]);
    expect(items).toHaveLength(15);
    const sums = items.filter((item) => item.task === "level-sum").sort((a, b) => a.index - b.index);
    // level-major: the same three seeds at each level
    expect(sums.map((item) => [item.index, item.level, item.seed])).toEqual(
      [0, 1, 2, 3].flatMap((level) => suite.environments[0]?.seeds.map((seed, position) => [level * 3 + position, level, seed]) ?? []),
    );
    expect(sums.map((item) => item.won)).toEqual([true, true, true, true, true, true, false, false, false, false, false, false]);
    expect(items.filter((item) => item.task === "one-level-product").map((item) => [item.level, item.won])).toEqual([
      [0, true],
      [0, true],
      [0, true],
    ]);

    const summary = summarizeEvaluation(items);
    const [envs] = summary.suites;
    expect(envs).toMatchObject({ items: 15, wins: 9 });
    expect(envs?.levels?.map((level) => [level.level, level.items, level.wins])).toEqual([
      [0, 6, 6],
      [1, 3, 3],
      [2, 3, 0],
      [3, 3, 0],
    ]);
    expect(envs?.levels?.[2]).toMatchObject({ winRate: 0, low: 0, high: expect.closeTo(0.5615, 3) }); // Wilson 95 % for 0/3
    expect(envs?.tasks.find((task) => task.name === "level-sum")?.levels?.map((level) => level.winRate)).toEqual([1, 1, 0, 0]);

    // the same plan again: every item is final, nothing is played
    const again = scriptedSolver();
    expect(await runEvaluation({ ...settings, record: record("levels-a"), store, model: again, sandbox, suites: [suite] })).toHaveLength(15);
    expect(again.prompts).toHaveLength(0);

    // another evaluation at level 0 only: --compare pairs level with level and warns that the pooled rows differ
    const base = await runEvaluation({ ...settings, record: record("levels-b"), store, model: scriptedSolver(), sandbox, suites: [{ ...suite, environments: [planned(levelSum, [0]), planned(product, [0])] }] });
    const [a, b] = [summary, summarizeEvaluation(base)];
    const rows = compareEvaluations(a, b);
    expect(rows.map((row) => row.name)).toEqual(["envs:levelled", "envs:levelled level 0", "envs:levelled/level-sum", "envs:levelled/level-sum level 0", "envs:levelled/one-level-product"]);
    expect(rows[1]).toMatchObject({ difference: 0, a: { items: 6 }, b: { items: 6 } });
    expect(comparisonWarnings(a, b)).toEqual([
      "envs:levelled: items per task differ (level-sum (12 vs 3)): pooled rows weight tasks differently",
      "envs:levelled: levels differ (A 0, 1, 2, 3; B 0): its suite and task rows pool different levels; compare the level rows",
    ]);
    expect(comparisonWarnings(a, a)).toEqual([]);
    store.close();
  }, 60_000);

  it("without planned levels, an item records the level its episode played (0 for a levelled family, none for one level)", async () => {
    const store = new SqliteEvalStore(":memory:");
    const items: ItemResult[] = await runEvaluation({ ...settings, record: record("levels-c"), store, model: scriptedSolver(), sandbox, suites: [{ kind: "environments", name: "plain", environments: [planned(levelSum), planned(product)] }] });
    // items come back in completion order (episodes run concurrently): sort by index
    expect(items.filter((item) => item.task === "level-sum").sort((a, b) => a.index - b.index).map((item) => [item.index, item.level, item.won])).toEqual([
      [0, 0, true],
      [1, 0, true],
      [2, 0, true],
    ]);
    expect(items.filter((item) => item.task === "one-level-product").every((item) => item.level === undefined)).toBe(true);
    expect(summarizeEvaluation(items).suites[0]?.levels?.map((level) => [level.level, level.items])).toEqual([[0, 6]]);
    store.close();
  }, 60_000);
});
