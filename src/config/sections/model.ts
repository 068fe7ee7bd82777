import { z } from "zod";

/** The `model` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const ModelSchema = z
  .object({
    /** `embedded`, a `.gguf` path, an `hf:` URI, or an OpenAI-compatible URL (`http://host:8000/v1#model`). CLI `--model`. @default "embedded" */
    spec: z.string().min(1).default("embedded"),
    /** Context window of embedded models, tokens. @default 4096 */
    contextSize: z.number().int().min(512).max(131_072).default(4096),
    /** CPU threads of embedded models; 0 = one per available core. @default 0 */
    threads: z.number().int().min(0).max(512).default(0),
    /**
     * Sequences of the embedded llama.cpp context: generations sampled at once, evaluated in shared
     * batches (each sequence holds its own `contextSize` of KV cache); 0 = `solver.concurrency`. @default 0
     */
    sequences: z.number().int().min(0).max(64).default(0),
    /**
     * Candidates when the embedded engine samples for training (`trainer.sampler` "engine"): the k most likely
     * tokens, renormalised (the stored logprobs are of that distribution, and the off-policy correction weighs
     * against it); 0 = the full vocabulary, whose per-token probability costs node-llama-cpp a sort of every
     * candidate (262,144 on Gemma 3): about 1.8x slower per token on 2 cores. At 1000 the engine–trainer KL
     * estimate measured 0.068 before and 0.015 after a step and its sync, nats/token (full vocabulary 0.016 and
     * −0.010; k = 64 0.135 and 0.100; docs/benchmarks/models.md). A k at or above the model's vocabulary size is the
     * full vocabulary. @default 1000
     */
    samplingTopK: z.number().int().min(0).max(1_000_000).default(1000),
    /** Request timeout of remote models, milliseconds. @default 120000 */
    timeoutMs: z.number().int().min(1000).default(120_000),
  })
  .strict()
  .prefault({});
