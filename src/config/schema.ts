import { z } from "zod";

/**
 * The whole configuration of an `envforge run`, validated by zod. Every key has
 * a default, so `{}` is a complete config; a config file (JSON) and CLI flags
 * override keys. Unknown keys are errors.
 */
export const ConfigSchema = z
  .object({
    /** Self-play rounds to run. CLI `--rounds`. @default 1 */
    rounds: z.number().int().min(1).max(100_000).default(1),
    /**
     * Run directory: `envforge.db` and `report.json` live here. CLI `--out`.
     * null = a new `runs/run-<UTC timestamp>` (or, with `--resume`, the newest folder in `runs/`). @default null
     */
    out: z.string().min(1).nullable().default(null),
    /** Master seed for sampling environments, corpus documents and episode seeds. CLI `--seed`. @default 0 */
    seed: z.number().int().min(0).default(0),
    /** Plays per environment per hint condition, for Solver episodes and calibration (SPADE uses 16). CLI `--plays`. @default 2 */
    plays: z.number().int().min(1).max(1024).default(2),
    model: z
      .object({
        /** `embedded`, a `.gguf` path, an `hf:` URI, or an OpenAI-compatible URL (`http://host:8000/v1#model`). CLI `--model`. @default "embedded" */
        spec: z.string().min(1).default("embedded"),
        /** Context window of embedded models, tokens. @default 4096 */
        contextSize: z.number().int().min(512).max(131_072).default(4096),
        /** CPU threads of embedded models; 0 = one per available core. @default 0 */
        threads: z.number().int().min(0).max(512).default(0),
        /** Request timeout of remote models, milliseconds. @default 120000 */
        timeoutMs: z.number().int().min(1000).default(120_000),
      })
      .strict()
      .prefault({}),
    solver: z
      .object({
        /** Environments sampled from memory per round. @default 3 */
        environments: z.number().int().min(1).max(100_000).default(3),
        /** Cap on turns per episode, on top of each environment's maxTurns. @default 8 */
        maxTurns: z.number().int().min(1).max(200).default(8),
        /** New tokens per Solver action. @default 48 */
        maxTokens: z.number().int().min(1).max(8192).default(48),
        /** Solver sampling temperature. @default 0.7 */
        temperature: z.number().min(0).max(2).default(0.7),
      })
      .strict()
      .prefault({}),
    designer: z
      .object({
        /** Designer completions per round. CLI `--designs`. @default 2 */
        designs: z.number().int().min(0).max(100_000).default(2),
        /** Corpus documents shown per Designer prompt (k). @default 2 */
        corpusDocuments: z.number().int().min(0).max(32).default(2),
        /** Environments from memory shown per prompt, highest designer reward first (m). @default 1 */
        memoryExamples: z.number().int().min(0).max(8).default(1),
        /** New tokens per design. @default 1536 */
        maxTokens: z.number().int().min(64).max(32_768).default(1536),
        /** Designer sampling temperature. @default 0.8 */
        temperature: z.number().min(0).max(2).default(0.8),
        /** Seeds used by the minimal admission gates. @default 3 */
        admissionSeeds: z.number().int().min(1).max(64).default(3),
      })
      .strict()
      .prefault({}),
    reward: z
      .object({
        /** Regret normaliser: regret_norm = min(regret / scale, 1) (SPADE). @default 0.15 */
        regretScale: z.number().positive().default(0.15),
        /** Weight of regret_norm in the Designer reward. @default 0.4 */
        regretWeight: z.number().min(0).default(0.4),
        /** Weight of the difficulty anchor in the Designer reward. @default 0.6 */
        anchorWeight: z.number().min(0).default(0.6),
        /** Lower edge of the anchor's flat top (no-hint win rate). @default 0.4 */
        anchorLow: z.number().min(0).max(1).default(0.4),
        /** Upper edge of the anchor's flat top. @default 0.6 */
        anchorHigh: z.number().min(0).max(1).default(0.6),
        /** Width of the anchor's linear decay outside the flat top. @default 0.25 */
        anchorWidth: z.number().positive().default(0.25),
        /** Designer reward of a completion that could not be parsed. @default -1 */
        unparseablePenalty: z.number().max(0).default(-1),
        /** Designer reward of a parsed design rejected by admission. @default -0.5 */
        rejectedPenalty: z.number().max(0).default(-0.5),
        /**
         * Designer reward mode: `regret-blend` (SPADE), `admission` (co-evolution), `learnability`
         * (Absolute Zero), `uncertainty` (R-Zero) or `learning-potential` (|fast − slow EMA| of the pass rate per skill). @default "regret-blend"
         */
        mode: z.enum(["regret-blend", "admission", "learnability", "uncertainty", "learning-potential"]).default("regret-blend"),
        /** Designer reward of a design rejected by semantic review or the novelty gate (`rejectedPenalty` covers mechanical gates). @default -0.5 */
        reviewRejectedPenalty: z.number().max(0).default(-0.5),
        /** `admission` mode: reward of a design that failed admission. @default -1 */
        admissionBroken: z.number().default(-1),
        /** `admission` mode: reward of an admitted design outside the calibration band. @default -0.25 */
        admissionOutsideBand: z.number().default(-0.25),
        /** `admission` mode: reward of an admitted design inside the band. @default 1 */
        admissionAdmitted: z.number().default(1),
        /** `admission` mode: exclusive lower edge of the calibration band (no-hint pass rate). @default 0 */
        admissionBandLow: z.number().min(0).max(1).default(0),
        /** `admission` mode: exclusive upper edge of the calibration band. @default 1 */
        admissionBandHigh: z.number().min(0).max(1).default(1),
        /** `learning-potential` mode: step size of the fast pass-rate EMA. @default 0.5 */
        learningPotentialFastRate: z.number().gt(0).max(1).default(0.5),
        /** `learning-potential` mode: step size of the slow pass-rate EMA. @default 0.1 */
        learningPotentialSlowRate: z.number().gt(0).max(1).default(0.1),
        /** Solver reward added per invalid action, after clipping the return. @default 0 */
        invalidActionPenalty: z.number().max(0).default(0),
        /** Solver reward added when the sandbox cut the episode (timeout, limits, crash), after clipping. @default 0 */
        sandboxCutPenalty: z.number().max(0).default(0),
      })
      .strict()
      .prefault({}),
    advantages: z
      .object({
        /** Divide `r − mean(group)` by the group's standard deviation plus `stdEpsilon`. @default false */
        scaleByStd: z.boolean().default(false),
        /** Epsilon added to the group standard deviation when scaling. @default 1e-6 */
        stdEpsilon: z.number().positive().default(1e-6),
        /** Designer groups: designs answering one `prompt`, or designs of one `skill` group. @default "prompt" */
        designerGroupBy: z.enum(["prompt", "skill"]).default("prompt"),
        /** Cap on the Designer loss weight (kept Solver samples / kept Designer samples) (SPADE). @default 50 */
        designerWeightCap: z.number().min(1).default(50),
        /** Cap C of the truncated importance weight min(π_old/π_sample, C) (SPADE). @default 2 */
        importanceCap: z.number().positive().default(2),
        /** Trainer loss: `ppo` or `importance_sampling`. @default "ppo" */
        lossKind: z.enum(["ppo", "importance_sampling"]).default("ppo"),
        /** Lower PPO clip threshold ε_low (SPADE). @default 0.2 */
        clipLow: z.number().min(0).max(1).default(0.2),
        /** Upper PPO clip threshold ε_high (SPADE). @default 0.28 */
        clipHigh: z.number().min(0).default(0.28),
      })
      .strict()
      .prefault({}),
    corpus: z
      .object({
        /** A `.jsonl` file (`{"id","text"}` per line) or a folder of `.txt`/`.md` files; null = the shipped sample corpus. @default null */
        path: z.string().nullable().default(null),
      })
      .strict()
      .prefault({}),
    sandbox: z
      .object({
        /** Sandbox backend. @default "bwrap" */
        backend: z.enum(["bwrap"]).default("bwrap"),
        /** Wall-clock limit per environment call, milliseconds. @default 10000 */
        callTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
        /** Address-space limit per environment process, MiB. @default 1024 */
        memoryMb: z.number().int().min(64).max(65_536).default(1024),
      })
      .strict()
      .prefault({}),
    trainer: z
      .object({
        /**
         * Training backend: `noop` computes nothing; `reference` starts the CPU reference trainer
         * (`trainer/`, Tinker API) on the embedded model; `tinker` speaks the Tinker API at `trainer.url`
         * (hosted Tinker, SkyRL's Tinker server, or a reference trainer started with `envforge trainer up`).
         * @default "noop"
         */
        backend: z.enum(["noop", "reference", "tinker"]).default("noop"),
        /** Server root of the `tinker` backend, e.g. `http://127.0.0.1:8765`. @default null */
        url: z.string().url().nullable().default(null),
        /** Environment variable that holds the Tinker API key (none sent when unset). @default "TINKER_API_KEY" */
        apiKeyEnv: z.string().min(1).default("TINKER_API_KEY"),
        /** Base model name on the backend; null = the first model the backend lists. @default null */
        baseModel: z.string().min(1).nullable().default(null),
        /** LoRA rank of the trained adapter. @default 8 */
        loraRank: z.number().int().min(1).max(256).default(8),
        /** Port of the `reference` trainer on 127.0.0.1. @default 8765 */
        port: z.number().int().min(1).max(65_535).default(8765),
        /** Adam learning rate. @default 0.00001 */
        learningRate: z.number().positive().default(1e-5),
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
      })
      .strict()
      .prefault({}),
    schedule: z
      .object({
        /** The Designer generates (and its delayed update is scheduled) every k steps; the Solver updates every step (co-evolution). @default 4 */
        designerEvery: z.number().int().min(1).default(4),
        /** Steps between a Designer generation and the update on its trajectories, corrected by truncated importance sampling (SPADE). @default 1 */
        designerDelay: z.number().int().min(0).default(1),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((config) => config.reward.anchorLow <= config.reward.anchorHigh, {
    message: "reward.anchorLow must not exceed reward.anchorHigh",
    path: ["reward", "anchorLow"],
  });

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
/** A partial configuration as written in a file. */
export type ConfigInput = z.input<typeof ConfigSchema>;
