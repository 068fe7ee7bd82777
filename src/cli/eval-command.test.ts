import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SqliteEvalStore, SqliteStore } from "../adapters/store/index.js";
import { compareEvaluations, comparisonWarnings, summarizeEvaluation } from "../core/eval/index.js";
import { ConfigError, LevelOutOfRangeError, type ItemResult } from "../spec/index.js";
import { evalCommand, evalStorePath, resolveEvalConfig } from "./eval-command.js";
import { evaluationJson, formatComparison, formatEvaluation, planDifferences, planSummary } from "./eval-report.js";

/** level-sum (levels 0..3) and one-level-product (one level). */
const LEVELLED = fileURLToPath(new URL("../../fixtures/levelled-envs", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("envforge eval flags", () => {
  it("map onto eval.* and model.spec", () => {
    const config = resolveEvalConfig({ suite: ["rg", "envs:envs/seeds"], tasks: "lcm, gcd", difficulty: "hard", items: 3, episodes: 4, seed: 9, concurrency: 2, maxTokens: 32, temperature: 0.5, timeout: 7, store: "x.db", model: "embedded:gemma-3-270m" });
    expect(config.eval).toMatchObject({ suites: ["rg", "envs:envs/seeds"], tasks: ["lcm", "gcd"], difficulty: "hard", items: 3, episodes: 4, seed: 9, concurrency: 2, maxTokens: 32, temperature: 0.5, timeoutMs: 7000, store: "x.db" });
    expect(config.model.spec).toBe("embedded:gemma-3-270m");
    expect(evalStorePath(resolveEvalConfig({}), undefined)).toBe(join("runs", "eval.db"));
    expect(evalStorePath(resolveEvalConfig({}), "runs/r1")).toBe(join("runs/r1", "eval.db"));
  });
  it("take the holdout fraction a run made its split with (and nothing else of its eval block); --holdout still wins", () => {
    const run = mkdtempSync(join(tmpdir(), "envforge-eval-run-"));
    folders.push(run);
    const store = new SqliteStore(join(run, "envforge.db"));
    store.setMeta("config", { pool: { packages: ["envs/tool-seeds"], seeds: false }, eval: { holdoutAtStart: true, holdoutFraction: 0.34, episodes: 9 } });
    store.close();
    expect(resolveEvalConfig({ run }).eval).toMatchObject({ holdoutFraction: 0.34, episodes: 2, holdoutAtStart: false });
    expect(resolveEvalConfig({ run, holdout: 0.5 }).eval.holdoutFraction).toBe(0.5);
    expect(resolveEvalConfig({ run }).pool.packages).toEqual(["envs/tool-seeds"]);
  });

  it("refuse an unknown suite, the holdout suite without a run, and a bad difficulty", () => {
    expect(() => resolveEvalConfig({ suite: ["gsm8k"] })).toThrowError(ConfigError);
    expect(() => resolveEvalConfig({ suite: ["holdout"] })).toThrowError(/--run/);
    expect(() => resolveEvalConfig({ difficulty: "extreme" })).toThrowError(ConfigError);
  });

  it("refuse --list with --compare, and a store path that is a folder, each with a message that says so", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "envforge-eval-store-"));
    folders.push(scratch);
    const store = join(scratch, "eval.db");
    new SqliteEvalStore(store).close();
    await expect(evalCommand({ store, list: true, compare: ["a", "b"] })).rejects.toThrow(new ConfigError("--list and --compare read the store in two different ways: give one of them"));
    await expect(evalCommand({ store: scratch, list: true })).rejects.toThrow(new ConfigError(`the eval store ${scratch} is a folder, not a store file; give a file path (e.g. ${join(scratch, "eval.db")})`));
    await expect(evalCommand({ store: scratch, suite: ["heldout-seeds"] })).rejects.toThrow(new ConfigError(`the eval store ${scratch} is a folder, not a store file; give a file path (e.g. ${join(scratch, "eval.db")})`));
  });

  it("refuse --compare without ids instead of taking the next flag as an id (the built CLI exits 2)", () => {
    const scratch = mkdtempSync(join(tmpdir(), "envforge-eval-compare-flags-"));
    folders.push(scratch);
    const store = join(scratch, "eval.db");
    new SqliteEvalStore(store).close();
    for (const args of [["--compare", "--json", "--store", store], ["--compare", "--store", store], ["--store", store, "--compare", "--json", "aaaa", "bbbb"]]) {
      const result = spawnSync("node", [BIN, "eval", ...args], { encoding: "utf8" });
      expect({ args, status: result.status }).toEqual({ args, status: 2 });
      expect(result.stderr).toMatch(/--compare takes two eval ids \(see --list\), not the flag --(json|store)/);
    }
  }, 60_000);

  it("leave no store file behind when the evaluation fails before anything is stored (the model cannot be loaded)", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "envforge-eval-no-store-"));
    folders.push(scratch);
    const store = join(scratch, "eval.db");
    await expect(evalCommand({ suite: [`envs:${LEVELLED}`], model: join(scratch, "missing.gguf"), store })).rejects.toThrow(/missing\.gguf/);
    expect(existsSync(store)).toBe(false);
    const result = spawnSync("node", [BIN, "eval", "--suite", "heldout-seeds", "--model", join(scratch, "missing.gguf"), "--store", store], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(existsSync(store)).toBe(false);
  }, 60_000);

  it("refuse an envs: suite that names no folder, a file or a folder without packages, before any model loads or store is written", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "envforge-eval-envs-"));
    folders.push(scratch);
    const file = join(scratch, "notes.txt");
    writeFileSync(file, "not a folder\n");
    const empty = join(scratch, "empty");
    mkdirSync(join(empty, "no-package"), { recursive: true });
    const store = join(scratch, "eval.db");
    // the model does not exist: reaching it would be a different error
    const flags = (suite: string) => ({ suite: [suite], model: join(scratch, "missing.gguf"), store });
    await expect(evalCommand(flags("envs:"))).rejects.toThrow(new ConfigError('eval.suites "envs:": name a folder of environment packages, e.g. envs:envs/seeds'));
    await expect(evalCommand(flags(`envs:${file}`))).rejects.toThrow(/is not a folder/);
    await expect(evalCommand(flags(`envs:${file}`))).rejects.toBeInstanceOf(ConfigError);
    await expect(evalCommand(flags(`envs:${empty}`))).rejects.toThrow(/holds no environment packages/);
    expect(existsSync(store)).toBe(false);
  });

  it("refuse a BFCL category envforge does not play (miss_func, a single-turn one) or none, before any model loads", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "envforge-eval-bfcl-"));
    folders.push(scratch);
    const store = join(scratch, "eval.db");
    const flags = (suite: string) => ({ suite: [suite], model: join(scratch, "missing.gguf"), store, bfclEntries: 1 });
    expect(resolveEvalConfig({ suite: ["bfcl", "bfcl:multi_turn_long_context"], bfclEntries: 5 }).eval).toMatchObject({ suites: ["bfcl", "bfcl:multi_turn_long_context"], bfclEntries: 5 });
    await expect(evalCommand(flags("bfcl:multi_turn_miss_func"))).rejects.toThrow(/multi_turn_miss_func is not played: its held-out functions join the tools mid-entry/);
    await expect(evalCommand(flags("bfcl:simple_python,multi_turn_base"))).rejects.toThrow(/unknown BFCL category simple_python/);
    await expect(evalCommand(flags("bfcl:"))).rejects.toThrow(ConfigError);
    expect(() => resolveEvalConfig({ bfclEntries: 500 })).toThrowError(ConfigError);
    expect(existsSync(store)).toBe(false);
  });
});

describe("envforge eval --levels", () => {
  const scratch = () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-eval-levels-"));
    folders.push(folder);
    return folder;
  };

  it("refuses a bad level before any model loads or store is written: x is a ConfigError, -1 and 99 name the environment's range", async () => {
    const folder = scratch();
    const store = join(folder, "eval.db");
    // the model does not exist: reaching it would be a different error
    const flags = (levels: string, suite = `envs:${LEVELLED}`) => ({ suite: [suite], levels, model: join(folder, "missing.gguf"), store });
    await expect(evalCommand(flags("x"))).rejects.toThrow(new ConfigError('--levels "x": "x" is not a level; give comma-separated integers (e.g. 0,2,5) or all'));
    await expect(evalCommand(flags("-1"))).rejects.toThrow(new LevelOutOfRangeError("level-sum", -1, 4));
    await expect(evalCommand(flags("0,99"))).rejects.toThrow("level 99 is outside level-sum's levels: 0..3");
    await expect(evalCommand(flags("4"))).rejects.toBeInstanceOf(LevelOutOfRangeError);
    // a suite of one-level environments only: a list without 0 leaves nothing to play
    const oneLevel = join(folder, "one-level");
    cpSync(join(LEVELLED, "one-level-product"), join(oneLevel, "one-level-product"), { recursive: true });
    await expect(evalCommand(flags("2,3", `envs:${oneLevel}`))).rejects.toThrow(`--levels 2,3: no environment of suite envs:${oneLevel} has these levels (its environments have one level, 0)`);
    expect(existsSync(store)).toBe(false);
  });

  it("skips a one-level environment's levels above 0 with a note, and Reasoning Gym's suite ignores --levels with a warning", async () => {
    const folder = scratch();
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // planning passes; the missing model is the first thing to fail
      await expect(evalCommand({ suite: [`envs:${LEVELLED}`], levels: "0,2", model: join(folder, "missing.gguf"), store: join(folder, "eval.db") })).rejects.toThrow(/missing\.gguf/);
      expect(() => resolveEvalConfig({ suite: ["rg"] })).not.toThrow();
      await expect(evalCommand({ suite: ["rg"], levels: "1", tasks: "no_such_task", model: join(folder, "missing.gguf"), store: join(folder, "rg.db") })).rejects.toThrow();
    } finally {
      spy.mockRestore();
    }
    expect(written.join("")).toContain(`envforge: envs:${LEVELLED}: 1 environment(s) of one level (one-level-product) skip level(s) 2; they play level 0\n`);
    expect(written.join("")).toContain("envforge: --levels applies to environment suites; reasoning-gym ignores it\n");
  });

  it("reports the win rate per level with Wilson intervals in the table and --json, and --list names the levels", () => {
    const items: ItemResult[] = [0, 2].flatMap((level) =>
      Array.from({ length: 4 }, (_, seed) => ({ ...item("envs:x", "level-sum", null, level === 0 ? seed : 4 + seed, level === 0 || seed === 0), level })),
    );
    const summary = summarizeEvaluation(items);
    const record = { id: "lvl1", model: "scripted-fake", checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-12-03T00:00:00.000Z", finishedAt: null };
    const table = formatEvaluation(record, summary, "eval.db").split("\n");
    expect(table.find((row) => row.startsWith("  level 0 "))).toMatch(/^ {2}level 0 +4 +100\.0% \[51\.0%, 100\.0%\]/);
    expect(table.find((row) => row.startsWith("  level 2 "))).toMatch(/^ {2}level 2 +4 +25\.0% \[4\.6%, 69\.9%\]/);
    expect(table.at(-1)).toMatch(/^level rows pool a suite's environments at that level/);
    const json = evaluationJson(record, summary, "eval.db") as { suites: { levels: { level: number; items: number; winRate: number; low: number; high: number }[]; tasks: { levels: unknown[] }[] }[] };
    expect(json.suites[0]?.levels.map((level) => [level.level, level.items, level.winRate])).toEqual([
      [0, 4, 1],
      [2, 4, 0.25],
    ]);
    expect(json.suites[0]?.levels[1]).toMatchObject({ low: expect.closeTo(0.0456, 3), high: expect.closeTo(0.6994, 3) });
    expect(json.suites[0]?.tasks[0]?.levels).toHaveLength(2);
    // level 0 alone (an evaluation without --levels of a levelled family) adds no rows
    expect(formatEvaluation(record, summarizeEvaluation(items.filter((entry) => entry.level === 0)), "eval.db")).not.toMatch(/level 0/);
    expect(planSummary({ suites: [{ name: "envs:x", environments: [{ id: "env-a", seeds: [5, 6], levels: [0, 2] }, { id: "env-b", seeds: [7] }] }] })).toBe("envs:x: 2 environments, 5 episodes, levels 0,2");
  });

  it("the built CLI exits 2 with the level's message", () => {
    const folder = scratch();
    const result = spawnSync("node", [BIN, "eval", "--suite", `envs:${LEVELLED}`, "--levels", "0,99", "--model", join(folder, "missing.gguf"), "--store", join(folder, "eval.db")], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("level 99 is outside level-sum's levels: 0..3");
    expect(existsSync(join(folder, "eval.db"))).toBe(false);
  }, 60_000);
});

function item(suite: string, task: string, bucket: ItemResult["bucket"], index: number, won: boolean): ItemResult {
  return { suite, task, bucket, index, seed: 0, score: won ? 1 : 0, won, actions: 1, invalidActions: 0, tokens: 5, seconds: 1, error: null, response: "", answer: null };
}

describe("--compare and --json", () => {
  it("compares two stored evaluations group by group with Newcombe intervals", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-compare-"));
    folders.push(folder);
    const store = new SqliteEvalStore(join(folder, "eval.db"));
    const begin = (id: string, model: string) => store.beginEval({ id, model, checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-01-01T00:00:00.000Z" });
    const a = begin("aaaa1111", "trained");
    const b = begin("bbbb2222", "base");
    // 56/70 vs 48/80 (Newcombe 1998's example (a)) on one task
    for (let index = 0; index < 70; index += 1) store.saveItem(a.id, item("reasoning-gym", "lcm", "Math", index, index < 56));
    for (let index = 0; index < 80; index += 1) store.saveItem(b.id, item("reasoning-gym", "lcm", "Math", index, index < 48));
    const rows = compareEvaluations(summarizeEvaluation(store.listItems(a.id)), summarizeEvaluation(store.listItems(b.id)));
    expect(rows.map((row) => row.name)).toEqual(["reasoning-gym", "reasoning-gym/lcm", "bucket:Math"]);
    expect(rows[2]).toMatchObject({ difference: expect.closeTo(0.2, 10), low: expect.closeTo(0.0524, 4), high: expect.closeTo(0.3339, 4) });
    const table = formatComparison(store.findEval("aaaa") ?? a, store.findEval("bbbb") ?? b, rows);
    expect(table).toContain("+20.0");
    expect(table).toMatch(/\[\+5\.2, \+33\.4\] +\*/);
    const json = evaluationJson({ ...a, finishedAt: null }, summarizeEvaluation(store.listItems(a.id)), "eval.db") as { model: string; suites: { name: string; items: number; winRate: number; low: number; high: number }[]; buckets: Record<string, { winRate: number; low: number; high: number }> };
    expect(json.model).toBe("trained");
    expect(json.suites[0]).toMatchObject({ name: "reasoning-gym", items: 70, winRate: 0.8 });
    expect(json.buckets.Math).toMatchObject({ winRate: 0.8, low: expect.any(Number), high: expect.any(Number) });
    store.close();
  });

  it("refuses to compare an evaluation with itself, by id or by two prefixes of it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-compare-"));
    folders.push(folder);
    const path = join(folder, "eval.db");
    const store = new SqliteEvalStore(path);
    store.beginEval({ id: "aaaa1111", model: "base", checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-01-01T00:00:00.000Z" });
    store.close();
    await expect(evalCommand({ compare: ["aaaa1111", "aaaa1111"], store: path })).rejects.toThrowError(/same evaluation \(aaaa1111\)/);
    await expect(evalCommand({ compare: ["aaaa", "aaaa11"], store: path })).rejects.toThrowError(ConfigError);
  });

  it("names the evals an ambiguous prefix matches, and refuses an empty id", async () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-compare-"));
    folders.push(folder);
    const path = join(folder, "eval.db");
    const store = new SqliteEvalStore(path);
    for (const id of ["abc111", "abc222"]) store.beginEval({ id, model: "base", checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-01-01T00:00:00.000Z" });
    store.close();
    await expect(evalCommand({ compare: ["abc", "abc111"], store: path })).rejects.toThrowError("the prefix abc matches 2 evals (abc111, abc222); give more of the id");
    await expect(evalCommand({ compare: ["", "abc111"], store: path })).rejects.toThrowError(/no eval with id or prefix ""/);
    await expect(evalCommand({ list: true, store: join(folder, "missing.db") })).rejects.toThrowError(/^no eval store at .*missing\.db$/);
    // without --store (the configured or default store), a store that does not exist yet lists nothing and exits 0
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ eval: { store: join(folder, "none-yet.db") } }));
    await expect(evalCommand({ list: true, config })).resolves.toBe(0);
    expect(existsSync(join(folder, "none-yet.db"))).toBe(false);
    await expect(evalCommand({ compare: ["a", "b"], config })).rejects.toThrowError(/^no eval store at .*none-yet\.db \(give --store\)$/);
  });

  it("warns when the two evaluations hold different tasks or items per task, and not when they match", () => {
    const summary = (tasks: Record<string, number>, suite = "reasoning-gym") =>
      summarizeEvaluation(Object.entries(tasks).flatMap(([task, count]) => Array.from({ length: count }, (_, index) => item(suite, task, "Math", index, index === 0))));
    expect(comparisonWarnings(summary({ lcm: 2, gcd: 2 }), summary({ gcd: 2, lcm: 2 }))).toEqual([]);
    expect(comparisonWarnings(summary({ lcm: 2, gcd: 2 }), summary({ lcm: 2, primes: 2 }))).toEqual([
      "reasoning-gym: 1 task only in A (gcd): its suite and bucket rows mix task sets",
      "reasoning-gym: 1 task only in B (primes): its suite and bucket rows mix task sets",
    ]);
    expect(comparisonWarnings(summary({ lcm: 2 }), summary({ lcm: 5 }))).toEqual(["reasoning-gym: items per task differ (lcm (2 vs 5)): pooled rows weight tasks differently"]);
    expect(comparisonWarnings(summary({ lcm: 2 }), summary({ lcm: 2 }, "holdout"))).toEqual(["suite only in A: reasoning-gym (no row)", "suite only in B: holdout (no row)"]);
  });

  it("summarises a stored plan for --list, and reads a malformed one without throwing", () => {
    const plan = {
      suites: [
        { name: "reasoning-gym", tasks: [{ name: "lcm" }, { name: "gcd" }], items: 2, seed: 1, difficulty: "hard" },
        { name: "heldout-seeds", environments: [{ id: "env-a", seeds: [5, 6] }, { id: "env-b", seeds: [7] }] },
      ],
    };
    expect(planSummary(plan)).toBe("reasoning-gym: 2 tasks × 2 items, seed 1, hard; heldout-seeds: 2 environments, 3 episodes");
    expect(planSummary(null)).toBe("");
    expect(planSummary({ suites: [null, { name: "x\u001b[2J" }] })).toBe("?; x\\x1b[2J");
  });

  it("names the plan settings two evaluations do not share (another seed asks other questions)", () => {
    const plan = (seed: number, maxTokens: number) => ({ suites: [{ name: "reasoning-gym", tasks: [{ name: "lcm" }], items: 2, seed, difficulty: "default" }], questions: { maxTokens, temperature: 0 }, episodes: { maxTurns: 3 } });
    expect(planDifferences(plan(1, 16), plan(1, 16))).toEqual([]);
    expect(planDifferences(plan(1, 16), plan(2, 8))).toEqual(["reasoning-gym seed 1 vs 2", "questions.maxTokens 16 vs 8"]);
    expect(planDifferences({}, null)).toEqual([]);
    const environments = (seeds: number[]) => ({ suites: [{ name: "heldout-seeds", environments: [{ id: "env-a", seeds }] }] });
    expect(planDifferences(environments([5, 6]), environments([5, 6]))).toEqual([]);
    expect(planDifferences(environments([5, 6]), environments([7, 8]))).toEqual(["heldout-seeds episode seeds differ"]);
  });
});

describe("envforge eval: tool-call replies", () => {
  it("counts replies whose calls parsed and validated against refused ones, by kind, and prints the share under the table", () => {
    const item = (index: number, replies: ItemResult["replies"]): ItemResult => ({
      suite: "envs:envs/tool-seeds",
      task: "bank-ledger",
      bucket: null,
      index,
      seed: index,
      score: 0,
      won: false,
      actions: replies?.length ?? 0,
      invalidActions: 0,
      tokens: 0,
      seconds: 1,
      error: null,
      response: "",
      answer: null,
      ...(replies === undefined ? {} : { replies }),
    });
    const items = [
      item(0, [{ text: "a", toolCalls: 1 }, { text: "b", toolError: "malformed_json" }, { text: "Balance: 3" }]),
      item(1, [{ text: "c", toolCalls: 2 }, { text: "d", toolError: "invalid_arguments" }, { text: "e", toolError: "invalid_arguments" }]),
    ];
    const summary = summarizeEvaluation(items);
    expect(summary.suites[0]?.toolCalls).toEqual({ valid: 2, refused: { malformed_json: 1, invalid_arguments: 2 }, validShare: 0.4 });
    const record = { id: "tools1", model: "m", checkpoint: null, suiteVersion: "v", plan: {}, createdAt: "2026-12-07T00:00:00.000Z", finishedAt: null };
    expect(formatEvaluation(record, summary, "eval.db")).toContain("envs:envs/tool-seeds: 2 of 5 tool-call replies parsed and validated (40.0%); refused: malformed_json 1, invalid_arguments 2");
    // questions and text environments record no replies: no tool-call line
    expect(summarizeEvaluation([item(2, undefined)]).suites[0]?.toolCalls).toBeUndefined();
  });
});
