import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteEvalStore } from "../../adapters/store/index.js";
import { bucketOfTask, ReasoningGymSuite } from "../../adapters/suites/reasoning-gym/index.js";
import type { ChatMessage, GenerateOptions, Generation, ItemResult, LanguageModel } from "../../spec/index.js";
import { runEvaluation, type QuestionSuitePlan } from "./run-evaluation.js";
import { summarizeEvaluation } from "./summarize.js";

// The suite is real (the Reasoning Gym bridge and its scorers); the model is a SCRIPTED FAKE that
// answers from the reference answers, a string that crashes prime_factorization's real scorer, or
// never (a time-out): it tests the control flow of resume and typed errors, not a model.
const suite = new ReasoningGymSuite();
const folder = mkdtempSync(join(tmpdir(), "envforge-eval-"));
afterAll(async () => {
  await suite.close();
  rmSync(folder, { recursive: true, force: true });
});

const tasks = ["basic_arithmetic", "prime_factorization", "no_such_task", "syllogism"];
const plan: QuestionSuitePlan = {
  kind: "questions",
  name: "reasoning-gym",
  suite,
  tasks: tasks.map((name) => ({ name, bucket: bucketOfTask(name, ""), config: {} })),
  items: 2,
  seed: 11,
};

class ScriptedAnswers implements LanguageModel {
  readonly id = "scripted-fake";
  calls = 0;
  constructor(private readonly answers: ReadonlyMap<string, string | null>) {}
  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    this.calls += 1;
    const content = messages[0]?.content ?? "";
    const question = [...this.answers.keys()].find((candidate) => content.startsWith(`${candidate}\n\n`));
    const answer = question === undefined ? undefined : this.answers.get(question);
    if (answer === null) {
      // never answers: only the time limit ends the call
      return new Promise((_, reject) => options.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    }
    return { text: `Thinking. <answer>${answer ?? "no idea"}</answer>`, tokens: [1, 2, 3], finishReason: "stop" };
  }
  async close(): Promise<void> {}
}

async function scriptedModel(): Promise<ScriptedAnswers> {
  const answers = new Map<string, string | null>();
  for (const item of await suite.generate({ task: "basic_arithmetic", config: {}, seed: 11, size: 2 })) answers.set(item.question, item.answer);
  for (const item of await suite.generate({ task: "prime_factorization", config: {}, seed: 11, size: 2 })) answers.set(item.question, "((");
  const [first, second] = await suite.generate({ task: "syllogism", config: {}, seed: 11, size: 2 });
  answers.set(first?.question ?? "", null);
  answers.set(second?.question ?? "", "Maybe");
  return new ScriptedAnswers(answers);
}

const record = { id: "resume-test", model: "scripted-fake", checkpoint: null, suiteVersion: "test", plan: { tasks }, createdAt: "2026-01-01T00:00:00.000Z" };
const settings = { questions: { maxTokens: 16, temperature: 0, seed: 0 }, episodes: { maxTurns: 1, maxTokens: 8, temperature: 0, concurrency: 1 }, generationTimeoutMs: 300, concurrency: 1 };

describe("runEvaluation on the real Reasoning Gym suite", () => {
  it("stores items as they finish, resumes an interrupted evaluation without redoing final items, and types every failure", async () => {
    const path = join(folder, "eval.db");
    const model = await scriptedModel();
    let seen = 0;
    const interrupted = new SqliteEvalStore(path);
    await expect(
      runEvaluation({
        ...settings,
        record,
        store: interrupted,
        model,
        suites: [plan],
        progress: {
          itemDone() {
            seen += 1;
            if (seen === 3) throw new Error("killed"); // as a stop after the third stored item
          },
        },
      }),
    ).rejects.toThrowError("killed");
    interrupted.close();

    const store = new SqliteEvalStore(path);
    const before = store.listItems(record.id);
    expect(before).toHaveLength(3);
    let started: [number, number] | null = null;
    const resumedModel = await scriptedModel();
    const items = await runEvaluation({ ...settings, record, store, model: resumedModel, suites: [plan], progress: { started: (total, done) => (started = [total, done]) } });
    expect(started).toEqual([8, 3]);
    // the unknown task's two items never reach the model; the three stored items are not asked again
    expect(resumedModel.calls).toBe(8 - 2 - (before.filter((item) => item.task !== "no_such_task").length));
    expect(items).toHaveLength(8);
    const byTask = (task: string) => items.filter((item) => item.task === task).sort((a, b) => a.index - b.index);
    expect(byTask("basic_arithmetic").map((item) => [item.won, item.score, item.error])).toEqual([
      [true, 1, null],
      [true, 1, null],
    ]);
    expect(byTask("prime_factorization").map((item) => item.error?.code)).toEqual(["scorer_crashed", "scorer_crashed"]);
    expect(byTask("prime_factorization")[0]?.error?.message).toMatch(/ValueError/);
    expect(byTask("no_such_task").map((item) => item.error?.code)).toEqual(["unknown_task", "unknown_task"]);
    expect(byTask("syllogism").map((item) => item.error?.code ?? "scored")).toEqual(["model_timeout", "scored"]);

    const summary = summarizeEvaluation(items);
    expect(summary.buckets.Math).toMatchObject({ items: 4, wins: 2, winRate: 0.5, errors: 2 });
    expect(summary.buckets.Logic).toMatchObject({ items: 2, wins: 0, errors: 1 });
    // five items were answered (3 tokens each): the unknown task never asked, the time-out gave none
    expect(summary.suites[0]).toMatchObject({ name: "reasoning-gym", items: 8, wins: 2, tokens: 5 * 3 });

    // once more: only the timed-out item (retryable) is asked again
    const again = await scriptedModel();
    const final: ItemResult[] = await runEvaluation({ ...settings, record, store, model: again, suites: [plan] });
    expect(again.calls).toBe(1);
    expect(final.filter((item) => item.error?.code === "model_timeout")).toHaveLength(1);
    expect(store.findEval("resume")?.finishedAt).not.toBeNull();
    store.close();
  }, 60_000);
});
