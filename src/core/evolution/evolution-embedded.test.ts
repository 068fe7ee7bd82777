import { afterAll, describe, expect, it } from "vitest";
import { readCorpus } from "../../adapters/corpus/index.js";
import { openModel } from "../../adapters/llm/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteStore } from "../../adapters/store/index.js";
import { parseConfig } from "../../config/index.js";
import type { ChatMessage, GenerateOptions, LanguageModel } from "../../spec/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { lineageIdFor, runEvolution } from "./lineage-runner.js";
import { DEFAULT_RUBRICS_PATH, readRubrics } from "./rubrics.js";
import { evolutionGates, evolutionSettingsFromConfig } from "./settings.js";

// End-to-end smoke test with the REAL embedded model (Gemma 3 270M, fetched by ./scripts/setup.sh):
// one seed, one generation, one round of each loop, small token budgets. It asserts that the whole pipeline ran on real
// model output and prints honestly how far the tiny model got; it does not require a validated child.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());

describe("environment evolution with the embedded model", () => {
  it("evolves one seed for one generation and reports how many generations the tiny model manages", async () => {
    // one llama.cpp thread: on a shared 2-core machine two spinning threads made each call about 3x slower
    const embedded = await openModel("embedded", { threads: 1 });
    let calls = 0;
    const model: LanguageModel = {
      id: embedded.id,
      generate: (messages: readonly ChatMessage[], options: GenerateOptions) => {
        calls += 1;
        return embedded.generate(messages, options);
      },
      close: () => embedded.close(),
    };
    // the seed with the shortest env.py keeps the prompts small
    const seed = loadSeedPackages().find((pkg) => pkg.manifest.name === "longest-increasing-subsequence");
    if (seed === undefined) throw new Error("seed longest-increasing-subsequence missing");
    const store = new SqliteStore(":memory:");
    const config = parseConfig({
      evolution: {
        generations: 1,
        planningRounds: 1,
        modificationRounds: 1,
        attemptsPerGeneration: 1,
        validationSeeds: 2,
        sequenceMaxTokens: 96,
        planMaxTokens: 128,
        reviewMaxTokens: 48,
        modifierMaxTokens: 512,
      },
      admission: { seeds: 2 },
    });
    try {
      const started = Date.now();
      const [outcome] = await runEvolution(
        [seed],
        { model, sandbox, store, corpus: readCorpus(null), gates: evolutionGates(config.admission), admission: testAdmissionResources(), rubrics: readRubrics(DEFAULT_RUBRICS_PATH) },
        evolutionSettingsFromConfig(config),
      );
      const [lineage] = store.listLineages();
      const attempts = store.listEvolutionAttempts(lineageIdFor(seed));
      const generations = store.listGenerations(lineageIdFor(seed));
      const attempt = attempts[0];
      const reasons = [...(attempt?.planning.map((round) => round.review) ?? []), ...(attempt?.modification.flatMap((round) => round.verdicts) ?? [])]
        .map((verdict) => (verdict.status === "reject" ? `${verdict.gate}/${verdict.reason}` : `${verdict.gate}/pass`))
        .join(", ");
      console.log(
        `embedded model: ${generations.length} of 1 generation validated in ${Math.round((Date.now() - started) / 1000)}s; ` +
          `sequence from ${lineage?.sequence.source} (${lineage?.sequence.steps.length} steps, D = ${lineage?.difficulty.total.toFixed(2)}); ` +
          `attempt outcome ${attempt?.outcome}; verdicts: ${reasons}; ${calls} model calls`,
      );
      expect(outcome?.generations).toBe(generations.length);
      expect(attempts).toHaveLength(1);
      // the model really answered: no attempt ended in a model error
      expect(attempt?.outcome).not.toBe("model_error");
      expect(calls).toBeGreaterThanOrEqual(2);
      for (const generation of generations) {
        expect(generation.validations.every((verdict) => verdict.status === "pass")).toBe(true);
        expect(generation.admission.every((verdict) => verdict.status === "pass")).toBe(true);
      }
    } finally {
      await model.close();
    }
  }, 900_000);
});
