import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceTrainerStatus, startReferenceTrainer, stopReferenceTrainer } from "../reference/reference-trainer-process.js";
import { runConformance } from "./conformance.js";
import { TinkerHttp } from "./tinker-http.js";
import { TinkerTrainer } from "./tinker-trainer.js";
import { TinkerLanguageModel, type ChatTokenizer } from "./tinker-language-model.js";
import { ModelRequestError } from "../../../spec/index.js";
import { trainerContract } from "../trainer.contract.js";
import { freePort } from "../../../testing/free-port.js";

/**
 * The conformance suite against the real reference trainer process (Python, torch)
 * serving a tiny randomly initialised Llama-shaped model, so the loss maths, the
 * futures and the weight publishing are exercised in seconds.
 */
describe("reference trainer (tiny random model)", () => {
  const runDir = mkdtempSync(join(tmpdir(), "envforge-trainer-"));
  let http: TinkerHttp;

  beforeAll(async () => {
    const state = await startReferenceTrainer({ runDir, model: "tiny-random", port: await freePort(), threads: 1, startTimeoutMs: 110_000 });
    http = new TinkerHttp({ baseUrl: state.url });
  });

  afterAll(async () => {
    await stopReferenceTrainer(runDir);
    rmSync(runDir, { recursive: true, force: true });
  });

  trainerContract("TinkerTrainer (reference trainer)", async () => TinkerTrainer.create(http, { baseModel: "tiny-random", loraRank: 4 }), { changesPolicy: true });

  it("passes every conformance check", async () => {
    const report = await runConformance(http);
    expect(report.checks.filter((check) => !check.passed)).toEqual([]);
    expect(report.passed).toBe(6);
  });

  it("restores adapter and optimiser state saved by another training run", async () => {
    const first = await TinkerTrainer.create(http, { baseModel: "tiny-random", loraRank: 4, seed: 1 });
    const datum = { modelInput: [2, 5, 6], targetTokens: [5, 6, 7], logprobs: [-4, -4, -4], advantages: [1, 1, 1], mask: [1, 1, 1] };
    await first.forwardBackward([datum], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 });
    await first.optimStep({ learningRate: 0.05, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 });
    const path = await first.saveState("step-1");
    const trained = await first.forward([datum], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 });
    const second = await TinkerTrainer.create(http, { baseModel: "tiny-random", loraRank: 4, seed: 2 });
    await second.loadState(path);
    const restored = await second.forward([datum], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 });
    expect(restored.logprobs?.[0]).toEqual(trained.logprobs?.[0]);
    expect(readFileSync(join(runDir, "trainer.log"), "utf8")).toContain("serving tiny-random");
    expect((await referenceTrainerStatus(runDir)).healthy).toBe(true);
  });

  it("serves the current policy as a LanguageModel with the sampler's tokens and logprobs", async () => {
    // control-flow: a scripted tokenizer (fixed prompt ids); sampling is the real trainer's
    const tokenizer: ChatTokenizer = {
      encodeChat: async (messages) => [2, ...messages.map((message) => message.content.length % 60)],
      encodeText: async (text) => [text.length % 60],
      decode: async (tokens) => tokens.map((token) => `<${token}>`).join(""),
    };
    const trainer = await TinkerTrainer.create(http, { baseModel: "tiny-random", loraRank: 4, seed: 5 });
    const model = new TinkerLanguageModel(await trainer.saveWeightsForSampler("lm-test"), tokenizer, "tiny-random@reference");
    const generation = await model.generate([{ role: "user", content: "hello" }], { maxTokens: 4, temperature: 1, seed: 1 });
    expect(generation.tokens?.length).toBeGreaterThan(0);
    expect(generation.logprobs).toHaveLength(generation.tokens?.length ?? -1);
    expect(generation.text).toBe(generation.tokens?.map((token) => `<${token}>`).join(""));
    const broken = new TinkerLanguageModel(trainer.baseSampler(), { ...tokenizer, encodeChat: async () => [1_000_000] }, "broken");
    await expect(broken.generate([{ role: "user", content: "x" }], { maxTokens: 2, temperature: 0 })).rejects.toBeInstanceOf(ModelRequestError);
  });
});
