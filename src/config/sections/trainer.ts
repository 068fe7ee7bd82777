import { z } from "zod";

/** The `trainer` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const TrainerSchema = z
  .object({
    /**
     * Training backend: `noop` computes nothing; `reference` starts the CPU reference trainer
     * (`trainer/`, Tinker API) on the embedded model; `tinker` speaks the Tinker API at `trainer.url`
     * (hosted Tinker, SkyRL's Tinker server, or a reference trainer started with `envforge trainer up`).
     * With `reference` and `tinker` the Solver and the Designer sample from the trained policy through
     * the trainer's sampler (the model named by `model.spec` is then not loaded).
     * @default "reference"
     */
    backend: z.enum(["noop", "reference", "tinker"]).default("reference"),
    /**
     * Model the `reference` trainer loads: null = the run's GGUF model (`model.spec` embedded or a `.gguf`
     * path); else a `.gguf` file, a Hugging Face model folder, or `tiny-random` (tests only). @default null
     */
    model: z.string().min(1).nullable().default(null),
    /** Server root of the `tinker` backend, e.g. `http://127.0.0.1:8765`. @default null */
    url: z.string().url().nullable().default(null),
    /** Environment variable that holds the Tinker API key (none sent when unset). @default "TINKER_API_KEY" */
    apiKeyEnv: z.string().min(1).default("TINKER_API_KEY"),
    /** Base model name on the backend; null = the first model the backend lists. @default null */
    baseModel: z.string().min(1).nullable().default(null),
    /**
     * Local Hugging Face tokenizer folder of the base model (`tokenizer.json`, `tokenizer_config.json`, and the chat
     * template in `chat_template.jinja` or the config's `chat_template` key), a path as given (relative to the working
     * directory). When set, the policy's chat messages are tokenised and its samples decoded here instead of through
     * the server's `/envforge/v1/` tokenizer routes, which hosted Tinker and SkyRL's Tinker server do not have.
     * null = the server's routes (the reference trainer has them). @default null
     */
    tokenizer: z.string().min(1).nullable().default(null),
    /** LoRA rank of the trained adapter. @default 8 */
    loraRank: z.number().int().min(1).max(256).default(8),
    /** Port of the `reference` trainer on 127.0.0.1; a port another process holds is replaced by a free one. @default 8765 */
    port: z.number().int().min(1).max(65_535).default(8765),
    /**
     * Adam learning rate. The trainer trains a LoRA adapter, whose rate is about 10x a full fine-tune's
     * (Schulman et al., "LoRA Without Regret", Thinking Machines 2025; the Tinker cookbook's `get_lr`). @default 0.0001
     */
    learningRate: z.number().positive().default(1e-4),
    /** Adam β1. @default 0.9 */
    beta1: z.number().min(0).lt(1).default(0.9),
    /** Adam β2. @default 0.95 */
    beta2: z.number().min(0).lt(1).default(0.95),
    /** Adam ε. @default 1e-8 */
    epsilon: z.number().positive().default(1e-8),
    /** Save adapter and optimiser state every N training steps (and after the last). @default 1 */
    checkpointEvery: z.number().int().min(1).default(1),
    /** Timeout of one HTTP request to the trainer, milliseconds. @default 60000 */
    requestTimeoutMs: z.number().int().min(1000).default(60_000),
    /**
     * Where the policy samples with `backend` "reference" on a GGUF model (`model.spec` embedded or a `.gguf`
     * path, or a `.gguf` `trainer.model`): `engine` samples on the embedded llama.cpp engine, which loads the
     * trainer's LoRA adapter whenever the policy version changes (weight sync, the run's `adapters/` folder);
     * `trainer` samples inside the reference trainer (transformers on the CPU, slower). Other backends and
     * models always sample on the trainer. The engine's logprobs are those of the distribution it sampled from
     * (tempered, penalised, quantised), so at each step the trainer recomputes every datum's logprobs and the
     * ratio π_trainer/π_engine, truncated at the importance cap, is folded into the advantages (the
     * training–inference mismatch correction); the round report's `trainer.samplerMismatch` gives the KL
     * estimate, the largest ratio and the truncated fraction. @default "engine"
     */
    sampler: z.enum(["engine", "trainer"]).default("engine"),
    /**
     * Sync check at the start of a run with `sampler` "engine": the mean absolute difference, nats per token,
     * allowed between the engine's and the trainer's logprobs of the logprob probe (with the trainer's
     * adapter loaded); a larger one fails the run. null skips the check. @default 0.25
     */
    syncCheckTolerance: z.number().positive().nullable().default(0.25),
    /**
     * The engine the policy samples on with `sampler` "engine". `embedded` (the default) is the llama.cpp
     * engine inside envforge, on the reference trainer's GGUF model. `vllm` and `sglang` sample on an
     * OpenAI-compatible inference server started separately on the same base model the trainer trains
     * (a Hugging Face model folder as `trainer.model`, or a reference trainer at `trainer.url` started with
     * `envforge trainer up`): after every optimiser step the trainer writes its LoRA adapter as a peft
     * folder into `adapterDir` and the server loads it at runtime (vLLM: `POST /v1/load_lora_adapter`,
     * server started with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` and `--enable-lora --max-lora-rank R`;
     * SGLang: `POST /load_lora_adapter`, `--enable-lora --max-lora-rank R --lora-target-modules all`), and
     * every request names that adapter. A server that cannot load the adapter stops the run at start.
     */
    engine: z
      .object({
        /** `embedded` (llama.cpp in envforge), `vllm` or `sglang` (a server at `url`). @default "embedded" */
        kind: z.enum(["embedded", "vllm", "sglang"]).default("embedded"),
        /** Root URL of the vLLM or SGLang server, without `/v1`, e.g. `http://127.0.0.1:8000`; required for them. @default null */
        url: z.string().url().nullable().default(null),
        /**
         * Absolute folder the trainer writes adapter folders into and the server reads them from, at the same path
         * on both (one machine, or a shared file system mounted at the same place); required for `vllm` and `sglang`.
         * @default null
         */
        adapterDir: z.string().min(1).nullable().default(null),
        /** Prefix of the adapters' names on the server (`<prefix>-<run instance>-policy-<version>`). @default "envforge" */
        adapterName: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, '_' and '-' only")
          .default("envforge"),
        /** Timeout of one request to the server (sample, score, load, unload), milliseconds. @default 120000 */
        requestTimeoutMs: z.number().int().min(1000).default(120_000),
        /** Environment variable that holds the server's API key (vLLM `--api-key`; none sent when unset). @default "ENVFORGE_ENGINE_API_KEY" */
        apiKeyEnv: z.string().min(1).default("ENVFORGE_ENGINE_API_KEY"),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});
