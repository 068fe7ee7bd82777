#!/usr/bin/env node
// Measures how often the embedded model's first Solver action is in the task's format, for two
// layouts of the Solver prompt: "system-first" (the instruction in a leading system message, the
// layout before this measurement) and "instruction-last" (`solverMessages`: the instruction after
// the observation, the layout in use). The environment judges: an action counts as readable when
// its step does not set info["invalid_action"]. Prints one line per seed environment and a total.
//
// Usage (after `npm run build`): node scripts/solver-prompt-format.mjs [--resets 3] [--samples 2]
// Figures: docs/benchmarks/models.md, "Solver prompt".
import { parseArgs } from "node:util";
import { openModel } from "../dist/adapters/llm/index.js";
import { loadSeedPackages } from "../dist/adapters/package-files/index.js";
import { BwrapSandbox } from "../dist/adapters/sandbox/index.js";
import { SOLVER_INSTRUCTION, solverMessages } from "../dist/core/selfplay/index.js";

const { values } = parseArgs({ options: { resets: { type: "string", default: "3" }, samples: { type: "string", default: "2" } } });
const resets = Number(values.resets);
const samples = Number(values.samples);
const layouts = {
  "system-first": (observation) => [
    { role: "system", content: `You are an agent acting in a text environment. Read the observation and ${SOLVER_INSTRUCTION.replace(/^Reply/, "reply")}` },
    { role: "user", content: observation },
  ],
  "instruction-last": (observation) => solverMessages({ initialObservation: observation, observation, turns: [] }, { hint: null }),
};

const model = await openModel("embedded", {});
const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
const totals = Object.fromEntries(Object.keys(layouts).map((name) => [name, 0]));
let tries = 0;
try {
  for (const pkg of loadSeedPackages()) {
    const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: null });
    if (opened.kind !== "ok") throw new Error(`${pkg.manifest.name}: ${opened.message}`);
    const session = opened.value;
    const readable = Object.fromEntries(Object.keys(layouts).map((name) => [name, 0]));
    for (let seed = 0; seed < resets; seed += 1) {
      for (const [name, layout] of Object.entries(layouts)) {
        for (let sample = 0; sample < samples; sample += 1) {
          const reset = await session.reset(seed);
          if (reset.kind !== "ok") throw new Error(`${pkg.manifest.name}: ${reset.message}`);
          const generation = await model.generate(layout(reset.value), { maxTokens: 24, temperature: 0.7, seed: 100 + seed * 7 + sample });
          const step = await session.step(generation.text.trim());
          if (step.kind === "ok" && step.value.info.invalid_action !== true) readable[name] += 1;
        }
      }
    }
    await session.close();
    tries += resets * samples;
    for (const name of Object.keys(layouts)) totals[name] += readable[name];
    console.log(`${pkg.manifest.name.padEnd(32)} ${Object.entries(readable).map(([name, count]) => `${name} ${count}/${resets * samples}`).join("   ")}`);
  }
  console.log(`${"all".padEnd(32)} ${Object.entries(totals).map(([name, count]) => `${name} ${count}/${tries}`).join("   ")}`);
} finally {
  await sandbox.close();
  await model.close();
}
