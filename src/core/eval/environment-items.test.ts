import { afterAll, describe, expect, it } from "vitest";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { packageId, type ChatMessage, type GenerateOptions, type Generation, type ItemResult, type LanguageModel } from "../../spec/index.js";
import { evaluateEpisodes, type PlannedEnvironment } from "./environment-items.js";
import { heldOutSeeds, TRAINING_SEED_LIMIT } from "./heldout-seeds.js";
import { timeLimitedModel } from "./time-limited-model.js";

// The sandbox and the environments are real (bubblewrap, a seed environment); the models are
// SCRIPTED FAKES (a fixed reply, or none) for the control flow of held-out episodes only.
const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());

function replying(text: string | null): LanguageModel {
  return {
    id: `scripted:${text}`,
    async generate(_messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
      if (text === null) return new Promise((_, reject) => options.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      return { text, tokens: [7, 7], finishReason: "stop" };
    },
    close: async () => {},
  };
}

function planned(pkg: PlannedEnvironment["package"], episodes: number): PlannedEnvironment {
  const id = packageId(pkg);
  return { id, package: pkg, seeds: heldOutSeeds(id, episodes, 0) };
}

async function play(environment: PlannedEnvironment, model: LanguageModel, maxTurns: number): Promise<ItemResult[]> {
  const results: ItemResult[] = [];
  const items = environment.seeds.map((_, index) => ({ suite: "heldout-seeds", environment, index }));
  await evaluateEpisodes(sandbox, timeLimitedModel(model, 300), items, { maxTurns, maxTokens: 8, temperature: 0, concurrency: 2 }, (result) => results.push(result));
  return results.sort((a, b) => a.index - b.index);
}

describe("held-out episodes through the sandbox and the Solver's policy", () => {
  it("held-out seeds are distinct, reproducible and never training's (below 1,000,000)", () => {
    const seeds = heldOutSeeds("env-x", 50, 3);
    expect(new Set(seeds).size).toBe(50);
    expect(seeds.every((seed) => seed >= TRAINING_SEED_LIMIT)).toBe(true);
    expect(heldOutSeeds("env-x", 50, 3)).toEqual(seeds);
    expect(heldOutSeeds("env-y", 50, 3)).not.toEqual(seeds);
  });

  it("scores an episode by its return and counts the turns the environment marked invalid", async () => {
    const numberGuess = loadSeedPackages().find((pkg) => pkg.manifest.name === "number-guess");
    if (numberGuess === undefined) throw new Error("the number-guess seed is missing");
    const environment = planned(numberGuess, 2);
    const refused = await play(environment, replying("I am not sure what to do here."), 2);
    expect(refused.map((result) => [result.task, result.seed, result.actions, result.invalidActions, result.won, result.error])).toEqual(
      environment.seeds.map((seed) => ["number-guess", seed, 2, 2, false, null]),
    );
    expect(refused[0]?.tokens).toBe(4);

    const answered = await play(planned(samplePackage(3), 1), replying("42"), 3);
    expect(answered[0]).toMatchObject({ won: true, score: 1, actions: 1, invalidActions: 0, error: null });
  }, 30_000);

  it("a model that never answers is the item's model_timeout, not a crashed evaluation", async () => {
    const results = await play(planned(samplePackage(4), 2), replying(null), 3);
    expect(results.map((result) => [result.won, result.error?.code])).toEqual([
      [false, "model_timeout"],
      [false, "model_timeout"],
    ]);
  }, 30_000);
});
