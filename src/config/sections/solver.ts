import { z } from "zod";

/** The `solver` block of the configuration (composed into `ConfigSchema` in ../schema.ts); docs/configuration.md is generated from these keys and their TSDoc. */
export const SolverSchema = z
  .object({
    /**
     * Environments sampled from memory per round. The quick-start value keeps a Solver step within
     * minutes while the policy samples on the CPU through the reference trainer. @default 1
     */
    environments: z.number().int().min(1).max(100_000).default(1),
    /** Cap on turns per episode, on top of each environment's maxTurns. @default 3 */
    maxTurns: z.number().int().min(1).max(200).default(3),
    /** New tokens per Solver action (with `format: "answer"` the reasoning counts too: give it 256 or more). @default 24 */
    maxTokens: z.number().int().min(1).max(8192).default(24),
    /**
     * How the Solver replies. `action`: the reply is the action (SPADE; short, for the quick start's small
     * model). `answer`: the Solver thinks step by step, then puts its action in `<answer>…</answer>`
     * (the agent format of RAGEN and VAGEN; the same extraction as `envforge eval`'s questions: the last
     * `<answer>`, else `\boxed{}`); the environment receives only that, and a reply without one is an
     * empty (invalid) action. The whole reply is the trajectory that trains. @default "action"
     */
    format: z.enum(["action", "answer"]).default("action"),
    /**
     * Characters of earlier turns (actions and observations) kept in the Solver's prompt: the oldest
     * turns are dropped until the rest fit, and one observation longer than this is cut in the middle
     * (a terminal command's output reaches 16 KB). About half the embedded engine's 4,096-token
     * context; raise it with `model.contextSize`. @default 6000
     */
    historyChars: z.number().int().min(200).max(1_000_000).default(6000),
    /** Solver sampling temperature. @default 0.7 */
    temperature: z.number().min(0).max(2).default(0.7),
    /**
     * How the Solver phase picks environments: `uniform` over memory, or `frontier` (each lineage's
     * current frontier generation, advanced by the frontier scheduler; see `evolution.frontier`). @default "uniform"
     */
    sampling: z.enum(["uniform", "frontier"]).default("uniform"),
    /**
     * Solver episodes in flight at once (the Solver phase, calibration plays and admission's
     * calibration gate, evolution and frontier rollouts), each in its own sandbox session. Seeds and
     * stored order do not depend on completion order. On the embedded engine each episode samples on
     * its own sequence of one llama.cpp context (`model.sequences`). On 2 cores 1, 2, 4 and 8 sampled at
     * the same speed within noise (one sequence already keeps both cores busy; docs/benchmarks/models.md); more cores,
     * a GPU or a server gain from more. @default 2
     */
    concurrency: z.number().int().min(1).max(256).default(2),
  })
  .strict()
  .prefault({});
