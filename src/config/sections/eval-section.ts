import { z } from "zod";

/** The `eval` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const EvalSchema = z
  .object({
    /**
     * Suites: `rg` (Reasoning Gym), `heldout-seeds` (the training environments on episode seeds training never
     * used), `holdout` (the run's holdout split of its pool; needs `--run`), `envs:<folder>` (any folder of
     * packages), `terminal:<folder>` (a folder of Harbor task folders, played in the terminal runtime with
     * `solver.maxTurns` commands; docs/terminal-environments.md), `bfcl` or `bfcl:<categories>` (BFCL v4 multi-turn
     * entries, `bfclEntries` per category, played as tool episodes and scored by BFCL's checker; categories
     * comma-separated from multi_turn_base, multi_turn_miss_param, multi_turn_long_context (not miss_func, whose
     * tools change mid-episode);
     * `bfcl` alone is multi_turn_base; docs/bfcl.md). CLI `--suite`. @default ["rg", "heldout-seeds"]
     */
    suites: z.array(z.string().min(1)).min(1).default(["rg", "heldout-seeds"]),
    /** Reasoning Gym tasks; null = the 20 fastest (5 per SPADE bucket); `["all"]` = every task in the bucket table. CLI `--tasks`. @default null */
    tasks: z.array(z.string().min(1)).min(1).nullable().default(null),
    /** Reasoning Gym parameters: the tasks' defaults, or the paper's `hard` ones (SPADE's comparable setting). CLI `--difficulty`. @default "default" */
    difficulty: z.enum(["default", "hard"]).default("default"),
    /** Items per Reasoning Gym task. CLI `--items`. @default 2 */
    items: z.number().int().min(1).max(10_000).default(2),
    /** Entries per BFCL category, the first ones in BFCL's order (`bfcl` suites; each entry is played once). CLI `--bfcl-entries`. @default 20 */
    bfclEntries: z.number().int().min(1).max(200).default(20),
    /**
     * Steps a BFCL user turn may take before the entry is force-quit (and fails): BFCL's own 20, or fewer to bound a
     * model that loops on calls (a documented departure from BFCL's runner; the report's suite version names it).
     * CLI `--bfcl-step-limit`. @default 20
     */
    bfclStepLimit: z.number().int().min(1).max(20).default(20),
    /** Episodes per held-out environment. CLI `--episodes`. @default 2 */
    episodes: z.number().int().min(1).max(10_000).default(2),
    /** Seed of the items and episode seeds (the same seed gives the same items). CLI `--seed`. @default 0 */
    seed: z.number().int().min(0).default(0),
    /** Fraction of a run's pool held out when `holdout` is evaluated and the run has no split yet (persisted; training then never samples it). CLI `--holdout`. @default 0.2 */
    holdoutFraction: z.number().min(0).lt(1).default(0.2),
    /**
     * `envforge run`: make the holdout split (`holdoutFraction`, `seed`) of the pool when a new run starts, before
     * round 1, so training never samples those environments (else the split is made by the first `envforge eval
     * --suite holdout`, and rounds run before it may have sampled them). @default false
     */
    holdoutAtStart: z.boolean().default(false),
    /** Items or episodes in flight at once (the embedded engine's sequences). CLI `--concurrency`. @default 1 */
    concurrency: z.number().int().min(1).max(64).default(1),
    /** New tokens per Reasoning Gym answer. CLI `--max-tokens`. @default 256 */
    maxTokens: z.number().int().min(1).max(32_768).default(256),
    /** Sampling temperature of answers and episodes (0 = greedy, reproducible). CLI `--temperature`. @default 0 */
    temperature: z.number().min(0).max(2).default(0),
    /** Limit of one generation, milliseconds; a model past it is that item's `model_timeout`. CLI `--timeout` (seconds). @default 120000 */
    timeoutMs: z.number().int().min(1).default(120_000),
    /** Eval store (SQLite); null = `<run>/eval.db` with `--run`, else `runs/eval.db`. CLI `--store`. @default null */
    store: z.string().min(1).nullable().default(null),
  })
  .strict()
  .prefault({});
