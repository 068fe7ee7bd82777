import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { extractAnswer } from "../../../core/rollout/answer-extraction.js";
import { EVAL_BUCKETS, SuiteError } from "../../../spec/index.js";
import { bucketOfTask, HARD_PARAMETERS, taskParameters } from "./buckets.js";
import { DEFAULT_REASONING_GYM_TASKS } from "./default-tasks.js";
import { ReasoningGymSuite } from "./reasoning-gym-suite.js";

// The real bridge on the pinned reasoning-gym (scripts/setup.sh step 2d).
const suite = new ReasoningGymSuite();
afterAll(() => suite.close());

/** Recorded real answers (first line of each file: how they were recorded): Gemma 3 270M, and Qwen2.5-Coder-0.5B base and trained. */
const FIXTURES = ["rg-gemma-3-270m.jsonl", "rg-qwen2.5-coder-0.5b.jsonl"].map((name) => {
  const [header, ...recorded] = readFileSync(new URL(`../../../../fixtures/eval/${name}`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { name, header, recorded };
});

describe("the Reasoning Gym bridge", () => {
  it("describes the pinned package, SPADE's buckets cover every task but the probability ones, and the hard parameters name real tasks", async () => {
    const info = await suite.info();
    expect(info.version).toBe("0.1.25");
    expect(info.systemPrompt).toContain("<answer>answer here</answer>");
    const names = info.tasks.map((task) => task.name);
    for (const task of [...DEFAULT_REASONING_GYM_TASKS, ...Object.keys(HARD_PARAMETERS)]) expect(names).toContain(task);
    const unbucketed = info.tasks.filter((task) => bucketOfTask(task.name, task.category) === null).map((task) => `${task.name}:${task.category}`);
    expect(unbucketed).toEqual(["coin_flip:probability", "composite:unknown"]);
    const perBucket = EVAL_BUCKETS.map((bucket) => DEFAULT_REASONING_GYM_TASKS.filter((task) => bucketOfTask(task, "") === bucket).length);
    expect(perBucket).toEqual([5, 5, 5, 5]);
  });

  it("generates the same items for the same request, and the default tasks' hard parameters construct", async () => {
    const request = { task: "chain_sum", config: {}, seed: 3, size: 2 };
    const first = await suite.generate(request);
    expect(first).toHaveLength(2);
    expect(await suite.generate(request)).toEqual(first);
    expect(await suite.generate({ ...request, seed: 4 })).not.toEqual(first);
    for (const task of DEFAULT_REASONING_GYM_TASKS) {
      const [item] = await suite.generate({ task, config: taskParameters(task, "hard"), seed: 1, size: 1 });
      expect(item?.question.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it("types bad input: an unknown task, parameters a task refuses, a scorer that crashes on a real answer", async () => {
    await expect(suite.generate({ task: "no_such_task", config: {}, seed: 1, size: 1 })).rejects.toMatchObject({ code: "unknown_task" });
    await expect(suite.generate({ task: "lcm", config: { no_such_parameter: 1 }, seed: 1, size: 1 })).rejects.toMatchObject({ code: "invalid_config" });
    // prime_factorization's scorer raises ValueError on "((", coin_flip's OverflowError on "1e999999" (reasoning-gym 0.1.25)
    const crashed = await suite.score({ task: "prime_factorization", config: {}, seed: 1, size: 1 }, 0, "((");
    expect(crashed).toMatchObject({ kind: "error", code: "scorer_crashed", message: expect.stringMatching(/ValueError/) });
    expect(await suite.score({ task: "coin_flip", config: {}, seed: 1, size: 1 }, 0, "1e999999")).toMatchObject({ kind: "error", code: "scorer_crashed" });
    // the bridge survives a crashing scorer
    expect(await suite.score({ task: "prime_factorization", config: {}, seed: 1, size: 1 }, 0, null)).toEqual({ kind: "ok", score: 0 });
  }, 30_000);

  it("a bridge that does not answer in time is a typed failure; a missing interpreter is suite_unavailable", async () => {
    const hung = new ReasoningGymSuite({ requestTimeoutMs: 1 });
    expect(await hung.score({ task: "lcm", config: {}, seed: 1, size: 1 }, 0, "1")).toMatchObject({ kind: "error", code: "scorer_crashed", message: expect.stringMatching(/no answer/) });
    await hung.close();
    const missing = new ReasoningGymSuite({ python: "/nonexistent/python" });
    await expect(missing.info()).rejects.toBeInstanceOf(SuiteError);
    await expect(missing.info()).rejects.toMatchObject({ code: "suite_unavailable" });
  });

  it.each(FIXTURES)("scores recorded real model answers as the evaluation did ($name)", async ({ recorded }) => {
    expect(recorded.length).toBeGreaterThanOrEqual(8);
    for (const line of recorded) {
      const response = String(line.response);
      expect(extractAnswer(response)).toBe(line.answer);
      const scored = await suite.score({ task: String(line.task), config: line.config as Record<string, unknown>, seed: Number(line.seed), size: Number(line.size) }, Number(line.index), line.answer as string | null);
      expect(scored).toEqual(line.error === null ? { kind: "ok", score: line.score } : expect.objectContaining({ kind: "error", code: line.error }));
    }
  }, 60_000);
});
