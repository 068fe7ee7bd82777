import { z } from "zod";

/** The `evolution` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const EvolutionSchema = z
  .object({
    /** Generations per seed (G). CLI `evolve --generations`. @default 15 */
    generations: z.number().int().min(1).max(1000).default(15),
    /** Direction of every generation, or `mixed` (a different direction than the parent's, at random). CLI `--direction`. @default "mixed" */
    direction: z.enum(["length", "scenario", "skill", "level", "mixed"]).default("mixed"),
    /** Effort: `low` one scenario–skill pair, `high` a contiguous span, `max` unbounded. CLI `--effort`. @default "high" */
    effort: z.enum(["low", "high", "max"]).default("high"),
    /** Proposer/reviewer rounds of the planning loop. @default 3 */
    planningRounds: z.number().int().min(1).max(50).default(3),
    /** Modifier rounds of the modification loop. @default 3 */
    modificationRounds: z.number().int().min(1).max(50).default(3),
    /** Attempts (planning + modification + admission) at one generation before its lineage stops. @default 2 */
    attemptsPerGeneration: z.number().int().min(1).max(100).default(2),
    /** Lineages evolved at the same time. @default 2 */
    parallelSeeds: z.number().int().min(1).max(64).default(2),
    /** Episode seeds (0..n−1) of the Modifier's oracle and negative-controls validations (the admission gates of those names). @default 3 */
    validationSeeds: z.number().int().min(1).max(64).default(3),
    /** Laplace smoothing α of the reference frequencies p(σ), p(κ|σ). @default 1 */
    smoothing: z.number().positive().default(1),
    /** Reference distributions of the difficulty: smoothed `frequency` over pool and corpus, or `model` (ask the model; frequencies where it gives no probability). @default "frequency" */
    reference: z.enum(["frequency", "model"]).default("frequency"),
    /** Rubric file (Markdown, `## Plan` / `## Child` bullets); null = the shipped `rubrics/evolution.md`. CLI `--rubrics`. @default null */
    rubrics: z.string().min(1).nullable().default(null),
    /** New tokens per sequence extraction. @default 384 */
    sequenceMaxTokens: z.number().int().min(16).max(8192).default(384),
    /** New tokens per Proposer plan for the model's own text (summary, changed steps); the parent's steps, which the plan repeats, are added on top (`planTokenBound`). @default 512 */
    planMaxTokens: z.number().int().min(16).max(8192).default(512),
    /** New tokens per review. @default 256 */
    reviewMaxTokens: z.number().int().min(16).max(8192).default(256),
    /** New tokens per Modifier reply. @default 2048 */
    modifierMaxTokens: z.number().int().min(64).max(32_768).default(2048),
    /** The change form the Modifier is asked for: `search-replace` blocks only (with a worked block), or `any` of blocks, unified diffs and full files. Every form is parsed either way. @default "search-replace" */
    modifierForm: z.enum(["search-replace", "any"]).default("search-replace"),
    /** Constrain Proposer plans (`planGrammar`: the plan's JSON object, the steps the direction keeps written in), rubric reviews (`reviewGrammar`: one reasoned check per rubric; the verdict is computed from the checks) and `search-replace` Modifier replies (`MODIFIER_GRAMMAR`: one to four blocks of 1–12 SEARCH lines and up to 40 REPLACE lines, then an optional JSON block) with GBNF grammars where the provider enforces them (embedded llama.cpp, vLLM, SGLang). @default true */
    grammar: z.boolean().default(true),
    /** Sampling temperature of the evolution roles. @default 0.7 */
    temperature: z.number().min(0).max(2).default(0.7),
    funnel: z
      .object({
        /** Run the seed funnel before evolving (drop seeds the Solver masters or that are too short). CLI `--funnel`. @default false */
        enabled: z.boolean().default(false),
        /** Solver rollouts per candidate seed. @default 8 */
        rollouts: z.number().int().min(1).max(1024).default(8),
        /** Highest pass rate of a kept seed (4/8 in the source). @default 0.5 */
        maxPassRate: z.number().min(0).max(1).default(0.5),
        /** Lowest mean turns of a kept seed (30 in the source; lower it for single-turn tasks). @default 30 */
        minMeanTurns: z.number().min(0).default(30),
      })
      .strict()
      .prefault({}),
    frontier: z
      .object({
        /** Rollouts per frontier probe (8 in the source). @default 8 */
        rollouts: z.number().int().min(1).max(1024).default(8),
        /** Wins out of `rollouts` that release the next generation (6/8 in the source). @default 6 */
        releaseWins: z.number().int().min(1).max(1024).default(6),
        /** Evolution directory (`envforge evolve --out`) whose lineages `envforge run` imports for `solver.sampling: "frontier"`; null = none. @default null */
        lineagesFrom: z.string().min(1).nullable().default(null),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});
