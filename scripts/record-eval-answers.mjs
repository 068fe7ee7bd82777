#!/usr/bin/env node
// Writes the recorded model answers of an eval store as a fixture (JSON lines) for the scorer-bridge test:
//   node bin/envforge.js eval --suite rg --tasks ... --items N --seed S --store STORE.db
//   node scripts/record-eval-answers.mjs STORE.db fixtures/eval/<name>.jsonl [STORE2.db ...]
// The first line describes the recording; each further line is one item: task, its parameters, seed and size
// (which regenerate the item), the model's full reply, the answer extracted from it and the score the eval gave.
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";

const args = process.argv.slice(2);
const out = args.splice(1, 1)[0];
if (args.length === 0 || out === undefined) {
  process.stderr.write("usage: node scripts/record-eval-answers.mjs STORE.db OUT.jsonl [MORE_STORES.db ...]\n");
  process.exit(2);
}
const lines = [];
const models = new Set();
for (const path of args) {
  const db = new Database(path, { readonly: true });
  for (const evaluation of db.prepare("SELECT id, model, checkpoint, plan, suite_version FROM evals ORDER BY seq").all()) {
    models.add(`${evaluation.model}${evaluation.checkpoint ? ` at ${evaluation.checkpoint.split("/").at(-1)}` : ""} (${evaluation.suite_version})`);
    const plan = JSON.parse(evaluation.plan);
    const suite = plan.suites.find((candidate) => candidate.name === "reasoning-gym");
    if (suite === undefined) continue;
    const configs = new Map(suite.tasks.map((task) => [task.name, task.config]));
    for (const row of db.prepare("SELECT result FROM eval_items WHERE eval_id = ? AND suite = 'reasoning-gym' ORDER BY seq").all(evaluation.id)) {
      const item = JSON.parse(row.result);
      if (item.error !== null && item.error.code !== "scorer_crashed") continue;
      lines.push({ task: item.task, config: configs.get(item.task) ?? {}, seed: suite.seed, size: suite.items, index: item.index, response: item.response, answer: item.answer, score: item.error === null ? item.score : null, error: item.error?.code ?? null, maxTokens: plan.questions.maxTokens, temperature: plan.questions.temperature });
    }
  }
  db.close();
}
const header = {
  recorded: new Date().toISOString().slice(0, 10),
  how: "real replies of the model(s) below, sampled by `envforge eval --suite rg` (src/core/eval) and exported with scripts/record-eval-answers.mjs; not edited",
  models: [...models],
};
writeFileSync(out, [header, ...lines].map((line) => JSON.stringify(line)).join("\n") + "\n");
process.stdout.write(`wrote ${lines.length} recorded answers to ${out}\n`);
