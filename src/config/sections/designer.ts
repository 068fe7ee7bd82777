import { z } from "zod";

/** The `designer` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const DesignerSchema = z
  .object({
    /** Designer completions per round. CLI `--designs`. @default 2 */
    designs: z.number().int().min(0).max(100_000).default(2),
    /**
     * Designs that share one prompt (G, SPADE): designs g·G … g·G + G − 1 of a round get the same corpus
     * documents and memory examples, so their rewards form one Designer group (`advantages.designerGroupBy:
     * "prompt"`); with G = 1 every design is alone in its group and the Designer gets no advantage. @default 2
     */
    samplesPerPrompt: z.number().int().min(1).max(1024).default(2),
    /** Corpus documents shown per Designer prompt (k). @default 2 */
    corpusDocuments: z.number().int().min(0).max(32).default(2),
    /** Environments from memory shown per prompt, highest designer reward first (m). @default 1 */
    memoryExamples: z.number().int().min(0).max(8).default(1),
    /**
     * New tokens per design attempt. A scaffolded design (`designer.format: "scaffold"`) takes 250–400 tokens
     * from Qwen2.5-Coder-1.5B; the bound also caps what a looping small model costs (about 60 s at 8 tokens/s).
     * The free-form `class` format needs 1536 or more. @default 512
     */
    maxTokens: z.number().int().min(64).max(32_768).default(512),
    /** Designer sampling temperature. @default 0.8 */
    temperature: z.number().min(0).max(2).default(0.8),
    /**
     * Reply format the Designer is asked for: `scaffold` (one Python block with `generate`, `render`, `solve`
     * and the manifest as constants; envforge supplies the class and the oracle) or `class` (manifest JSON,
     * a free-form `env.py` class and `oracle.py`), or `tool` (the class format for tool-use environments: tools in
     * the JSON block, `step` receives tool calls; memory examples are the tool environments, e.g. `pool.packages:
     * ["envs/tool-seeds"]`, and the corpus defaults to `corpus/tools.jsonl`; give it `maxTokens` 2048). The parser
     * accepts every format whatever is asked. @default "scaffold"
     */
    format: z.enum(["scaffold", "class", "tool"]).default("scaffold"),
    /**
     * Strength (0–1) of the repetition penalty on Designer samples (the DRY sampler on the embedded llama.cpp
     * engine; ignored by other providers): small coder models otherwise loop on repeated lines until the token
     * bound. 0 turns it off. @default 0
     */
    repetitionPenalty: z.number().min(0).max(1).default(0),
    /**
     * Constrain scaffolded Designer replies with the scaffold grammar (`SCAFFOLD_GRAMMAR`, GBNF): the fences,
     * the manifest constants and `generate`/`render`/`solve` cannot be left out. Enforced by the embedded
     * llama.cpp engine (directly or as the engine sampler); other providers ignore it; not used with `format`
     * "class". Measured on `envforge bench designer` (docs/benchmarks/designer.md, "Designer yield"): with it
     * Qwen2.5-Coder-0.5B's first attempts all parse (4 of 6 without) and Gemma 3 270M's replies parse at all.
     * @default true
     */
    grammar: z.boolean().default(true),
    /**
     * Repair turns per design: the first failing verdict (reason, message, evidence) goes back to the Designer
     * as the next user message, up to this many times; the whole conversation is the Designer's trajectory and
     * the final verdict gives its reward. 0 = one attempt. @default 2
     */
    repairTurns: z.number().int().min(0).max(16).default(2),
    /**
     * How a repair turn is asked: `conversation` (the attempt, then the verdict as the next user message: the
     * Designer edits its own reply) or `restart` (the original prompt again, the verdict appended as a note: a
     * fresh attempt that knows the error; small models shown their own reply mostly copy it). An attempt cut
     * off at `maxTokens` is always restarted. @default "conversation"
     */
    repairMode: z.enum(["conversation", "restart"]).default("conversation"),
    /** Superseded by `admission.probeSeeds` and `admission.seeds`; still accepted and ignored. @deprecated @default 3 */
    admissionSeeds: z.number().int().min(1).max(64).default(3),
  })
  .strict()
  .prefault({});
