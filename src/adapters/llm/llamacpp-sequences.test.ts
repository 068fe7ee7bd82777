import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath } from "./embedded-model.js";
import { LlamaCppModel } from "./llamacpp-model.js";

// The real embedded Gemma 3 270M on llama.cpp, with several sequences of one context.
const MODEL = embeddedModelPath();
const PROMPT = "<start_of_turn>user\nName three colours, one per line.<end_of_turn>\n<start_of_turn>model\n";
const OTHER = "<start_of_turn>user\nCount from one to five in words.<end_of_turn>\n<start_of_turn>model\n";

/** Highest probability of a greedy token at which a batched and a lone run may part (a near-tie). */
const NEAR_TIE = 0.6;

describe.skipIf(!existsSync(MODEL))("llama.cpp with parallel sequences (Gemma 3 270M)", () => {
  let parallel: LlamaCppModel;
  let single: LlamaCppModel;

  beforeAll(async () => {
    parallel = await LlamaCppModel.load({ modelPath: MODEL, contextSize: 512, threads: 1, sequences: 3 });
    single = await LlamaCppModel.load({ modelPath: MODEL, contextSize: 512, threads: 1 });
  }, 120_000);
  afterAll(async () => {
    await parallel?.close();
    await single?.close();
  });

  it("samples concurrent calls in shared batches with the same greedy tokens as one at a time, up to near-ties", async () => {
    expect(parallel.parallelSequences).toBe(3);
    expect(single.parallelSequences).toBe(1);
    const prompts = [PROMPT, OTHER, PROMPT].map((text) => parallel.tokenize(text));
    const greedy = { maxTokens: 12, temperature: 0 } as const;
    const together = await Promise.all(prompts.map((prompt) => parallel.sampleTokens(prompt, greedy)));
    const alone: Awaited<ReturnType<LlamaCppModel["sampleTokens"]>>[] = [];
    for (const prompt of prompts) alone.push(await single.sampleTokens(prompt, greedy));
    // llama.cpp's numerics depend on how a batch is split (on an AMD EPYC the shared batch changed OTHER's first
    // greedy token): a shared batch may part from the lone run only where neither run's token was dominant
    together.forEach((sample, index) => {
      const lone = alone[index] as (typeof alone)[number];
      const at = sample.tokens.findIndex((token, position) => token !== lone.tokens[position]);
      if (at < 0) return;
      expect(Math.exp(sample.logprobs[at] as number)).toBeLessThan(NEAR_TIE);
      expect(Math.exp(lone.logprobs[at] as number)).toBeLessThan(NEAR_TIE);
    });
    expect(together[0]?.tokens).toEqual(together[2]?.tokens);
    expect(together[0]?.tokens).not.toEqual(together[1]?.tokens);
    for (const sample of together) expect(sample.logprobs.every((value) => Number.isFinite(value) && value <= 0)).toBe(true);
  }, 120_000);

  it("samples among the samplingTopK most likely tokens, with logprobs of that renormalised distribution", async () => {
    const top1 = await LlamaCppModel.load({ modelPath: MODEL, contextSize: 512, threads: 1, samplingTopK: 1 });
    try {
      const prompt = top1.tokenize(PROMPT);
      const sampled = await top1.sampleTokens(prompt, { maxTokens: 8, temperature: 1, seed: 3 });
      const greedy = await single.sampleTokens(prompt, { maxTokens: 8, temperature: 0 });
      // one candidate: the sample is the greedy one whatever the temperature, each token with probability 1
      expect(sampled.tokens).toEqual(greedy.tokens);
      expect(sampled.logprobs.every((value) => Math.abs(value) < 1e-6)).toBe(true);
      // over the full vocabulary the same tokens at temperature 1 have probability below 1
      const full = await single.sampleTokens(prompt, { maxTokens: 8, temperature: 1, seed: 3 });
      expect(full.logprobs.some((value) => value < -1e-3)).toBe(true);
    } finally {
      await top1.close();
    }
  }, 120_000);

  it("queues calls beyond the sequences and swaps the adapter only between samples", async () => {
    const prompt = parallel.tokenize(PROMPT);
    const events: string[] = [];
    const sample = (index: number) =>
      parallel.sampleTokens(prompt, { maxTokens: 6, temperature: 1, seed: index }).then((result) => {
        events.push(`sample ${index}`);
        return result;
      });
    const first = [0, 1, 2, 3, 4].map(sample);
    const swap = parallel.setAdapter(null).then(() => events.push("swap"));
    const after = sample(5);
    const results = await Promise.all([...first, after]);
    await swap;
    expect(results).toHaveLength(6);
    // the swap waited for the five calls made before it, and the call made after it waited for the swap
    expect(events.indexOf("swap")).toBe(5);
    expect(events.at(-1)).toBe("sample 5");
  }, 120_000);
});
