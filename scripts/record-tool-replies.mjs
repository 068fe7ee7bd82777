#!/usr/bin/env node
// Writes the Solver's recorded replies to tool environments from eval stores as a fixture (JSON lines) for the
// reply-parser test (src/core/rollout/tool-calls.recorded.test.ts):
//   node bin/envforge.js eval --suite envs:envs/tool-seeds --model M --store STORE.db
//   node scripts/record-tool-replies.mjs OUT.jsonl STORE.db [MORE_STORES.db ...]
// The first line describes the recording; each further line is one distinct reply: the model, the environment (task),
// the reply's text as sampled, and how the episode loop classified it then (toolCalls: calls that ran; toolError: why
// the calls were refused; neither: a final message).
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";

const [out, ...stores] = process.argv.slice(2);
if (out === undefined || stores.length === 0) {
  process.stderr.write("usage: node scripts/record-tool-replies.mjs OUT.jsonl STORE.db [MORE_STORES.db ...]\n");
  process.exit(2);
}
const lines = [];
const seen = new Set();
const models = new Set();
for (const path of stores) {
  const db = new Database(path, { readonly: true });
  for (const evaluation of db.prepare("SELECT id, model, checkpoint, plan FROM evals ORDER BY seq").all()) {
    const plan = JSON.parse(evaluation.plan);
    const model = evaluation.checkpoint === null ? evaluation.model : `${evaluation.model} at ${evaluation.checkpoint.split("/").at(-1)}`;
    for (const row of db.prepare("SELECT result FROM eval_items WHERE eval_id = ? ORDER BY seq").all(evaluation.id)) {
      const item = JSON.parse(row.result);
      // BFCL's tools live in its bridge, not in envs/tool-seeds: the fixture keeps the tool seeds' replies
      if (item.suite.startsWith("bfcl")) continue;
      for (const reply of item.replies ?? []) {
        const key = JSON.stringify([item.task, reply.text]);
        if (seen.has(key)) continue;
        seen.add(key);
        models.add(`${model} (max ${plan.episodes?.maxTokens ?? "?"} tokens, temperature ${plan.episodes?.temperature ?? "?"})`);
        lines.push({ model, suite: item.suite, task: item.task, text: reply.text, ...(reply.toolCalls === undefined ? {} : { toolCalls: reply.toolCalls }), ...(reply.toolError === undefined ? {} : { toolError: reply.toolError }) });
      }
    }
  }
  db.close();
}
const header = {
  recorded: new Date().toISOString().slice(0, 10),
  how: "real Solver replies to tool environments, sampled by `envforge eval` (src/core/eval) and exported with scripts/record-tool-replies.mjs; not edited",
  models: [...models],
};
writeFileSync(out, [header, ...lines].map((line) => JSON.stringify(line)).join("\n") + "\n");
process.stdout.write(`wrote ${lines.length} distinct recorded replies to ${out}\n`);
