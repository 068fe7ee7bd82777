import { z } from "zod";

/** Names of the admission gates, cheapest first (the default order of `admission.gates`). */
export const ADMISSION_GATE_NAMES = [
  "static",
  "executable",
  "deterministic",
  "oracle",
  "negative-controls",
  "scorer-contract",
  "hint",
  "levels",
  "novelty",
  "decontamination",
  "self-review",
  "calibration",
] as const;

/** One admission gate name. */
export type AdmissionGateName = (typeof ADMISSION_GATE_NAMES)[number];

/** The `admission` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const AdmissionSchema = z
  .object({
    /**
     * Gates to run, in order (cheapest first); the pipeline stops at the first reject. Names: `static`,
     * `executable`, `deterministic`, `oracle`, `negative-controls`, `scorer-contract`, `hint`, `levels`,
     * `novelty`, `decontamination`, `self-review`, `calibration`. In a levelled family `executable` …
     * `hint` check every declared level, and `levels` checks that the levels differ and grow harder.
     * @default all twelve, in that order
     */
    gates: z.array(z.enum(ADMISSION_GATE_NAMES)).min(1).default([...ADMISSION_GATE_NAMES]),
    /** Gates to leave out of `gates` (CLI `envforge admit --skip`). @default [] */
    skip: z.array(z.enum(ADMISSION_GATE_NAMES)).default([]),
    /** Candidates admitted at the same time; 0 = one per CPU core (the sandbox's worker count). @default 0 */
    concurrency: z.number().int().min(0).max(256).default(0),
    /** Episode seeds of the executable gate's probes (0..n−1). @default 3 */
    probeSeeds: z.number().int().min(1).max(64).default(3),
    /** Episode seeds of the deterministic, oracle, negative-control, scorer-contract and hint gates (0..n−1). @default 8 */
    seeds: z.number().int().min(2).max(64).default(8),
    /**
     * The highest share of its episodes a seeded random agent may win in a sound task (the negative-controls
     * gate's null hypothesis): it plays `seeds` plus 8 spread seeds, and the task is rejected as
     * `random_agent_passes` when that many wins or more would have probability below `controlAlpha` at this
     * rate (a one-sided exact binomial test: 3 or more wins of 16 reject). Measured with its seeds: a one-answer
     * yes/no task is won in 0-1 of 16 episodes, a yes/no task with 3 tries in 2 of 16 (about 10 % by the random
     * agent's odds, so such a task is rejected now and then: a fixed "yes", "no" sweep wins it anyway), a task that
     * takes any integer in 29 of 64. @default 0.05
     */
    randomWinRate: z.number().min(0).lt(1).default(0.05),
    /** Significance level of the random agent's binomial test (`randomWinRate`). @default 0.05 */
    controlAlpha: z.number().gt(0).lt(1).default(0.05),
    /**
     * Relative drop of the off-policy difficulty D (oracle turns × first-observation characters, mean over
     * the gate seeds) from one level to the next that the levels gate still accepts as noise: D is a proxy, and
     * a single-turn family's prompt length varies with the instance (7 of 80 RLVE environments drop 5–11 %
     * between levels whose parameters grow; docs/benchmarks/levels.md, "RLVE"). @default 0.15
     */
    levelTolerance: z.number().min(0).max(1).default(0.15),
    /** Largest `env.py`, characters (static gate). @default 65536 */
    maxEnvChars: z.number().int().min(100).default(65_536),
    /** Largest `oracle.py`, characters (static gate). @default 32768 */
    maxOracleChars: z.number().int().min(20).default(32_768),
    /** Shortest hint, characters (hint gate). @default 20 */
    hintMinChars: z.number().int().min(1).default(20),
    /** Longest hint, characters (hint gate). @default 1000 */
    hintMaxChars: z.number().int().min(1).max(2000).default(1000),
    /** Text novelty: reject when the MinHash Jaccard with a pool environment reaches this. @default 0.8 */
    textSimilarity: z.number().gt(0).max(1).default(0.8),
    /** Behaviour novelty: reject when the probe-trace Jaccard with a pool environment reaches this. @default 0.8 */
    behaviourSimilarity: z.number().gt(0).max(1).default(0.8),
    /** User-supplied benchmark texts for decontamination: a `.jsonl` (`{"id","text"}`) or a folder of `.txt`/`.md`; null = none. @default null */
    benchmarkPath: z.string().min(1).nullable().default(null),
    /** Word n-gram length of the decontamination overlap. @default 13 */
    contaminationNgram: z.number().int().min(4).max(64).default(13),
    /** Independent self-reviews by the model (EvoEnv K). @default 3 */
    reviews: z.number().int().min(1).max(16).default(3),
    /**
     * Rejecting reviews that reject the candidate: 1 = any reject rejects (EvoEnv); 2 of 3 = a majority, for a
     * small model whose reviews are noisy (a Qwen2.5-Coder-1.5B design "sum of 4–7 numbers", a sound task, was
     * rejected by one of its three reviews, which faulted the description for not saying what it says). Above `reviews` nothing is rejected by review
     * (the gate still needs one parseable review). @default 1
     */
    reviewRejections: z.number().int().min(1).max(16).default(1),
    /** Rubric file of the self-review (Markdown); null = the shipped `rubrics/self-review.md`. @default null */
    rubricPath: z.string().min(1).nullable().default(null),
    /** New tokens per review. @default 256 */
    reviewMaxTokens: z.number().int().min(16).max(8192).default(256),
    /**
     * Constrain review replies with \`REVIEW_GRAMMAR\` (GBNF: short lines, then \`VERDICT: ACCEPT|REJECT\`) where the
     * provider enforces grammars (the embedded llama.cpp engine, vLLM, SGLang); others ignore it. Without it
     * Qwen2.5-Coder-0.5B's reviews often hold no verdict line. @default true
     */
    reviewGrammar: z.boolean().default(true),
    /** Review sampling temperature. @default 0.7 */
    reviewTemperature: z.number().min(0).max(2).default(0.7),
    /** Calibration plays by the Solver without the hint (EvoEnv m). @default 8 */
    calibrationPlays: z.number().int().min(1).max(1024).default(8),
    /** Exclusive lower edge of the calibration band (Solver pass rate). @default 0 */
    bandLow: z.number().min(0).max(1).default(0),
    /** Exclusive upper edge of the calibration band. @default 1 */
    bandHigh: z.number().min(0).max(1).default(1),
    /** Extra plays when the first estimate lies within `edgeMargin` of a band edge; 0 = no second stage. @default 8 */
    secondStagePlays: z.number().int().min(0).max(1024).default(8),
    /** Distance from a band edge that triggers the second stage (pass-rate units). @default 0.125 */
    edgeMargin: z.number().min(0).max(0.5).default(0.125),
  })
  .strict()
  .prefault({});
