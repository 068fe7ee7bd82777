import { z } from "zod";
import { AdmissionSchema } from "./sections/admission.js";
import { AdvantagesSchema } from "./sections/advantages.js";
import { CorpusSchema } from "./sections/corpus.js";
import { DesignerSchema } from "./sections/designer.js";
import { EvalSchema } from "./sections/eval-section.js";
import { EvolutionSchema } from "./sections/evolution.js";
import { LevelsSchema } from "./sections/levels.js";
import { MetricsSchema } from "./sections/metrics.js";
import { ModelSchema } from "./sections/model.js";
import { RewardSchema } from "./sections/reward.js";
import { SandboxSchema } from "./sections/sandbox.js";
import { ScheduleSchema } from "./sections/schedule.js";
import { ServeSchema } from "./sections/serve.js";
import { SolverSchema } from "./sections/solver.js";
import { TerminalSchema } from "./sections/terminal.js";
import { OpenEnvSchema } from "./sections/openenv.js";
import { PoolSchema } from "./sections/pool.js";
import { JobsSchema } from "./sections/jobs.js";
import { StoreSchema } from "./sections/store.js";
import { TrainerSchema } from "./sections/trainer.js";

export { ADMISSION_GATE_NAMES, type AdmissionGateName } from "./sections/admission.js";

/**
 * The whole configuration of an `envforge run`, validated by zod. Every key has
 * a default, so `{}` is a complete config; a config file (JSON) and CLI flags
 * override keys. Unknown keys are errors.
 */
export const ConfigSchema = z
  .object({
    /**
     * Self-play rounds to run; each ends with one optimiser step of the shared policy, so the
     * default trains two steps (the quick start's main job). CLI `--rounds`. @default 2
     */
    rounds: z.number().int().min(1).max(100_000).default(2),
    /**
     * Run directory: `envforge.db` and `report.json` live here. CLI `--out`.
     * null = a new `runs/run-<UTC timestamp>` (or, with `--resume`, the newest folder in `runs/`). @default null
     */
    out: z.string().min(1).nullable().default(null),
    /** Master seed for sampling environments, corpus documents and episode seeds. CLI `--seed`. @default 0 */
    seed: z.number().int().min(0).default(0),
    /** Plays per environment per hint condition, for Solver episodes and calibration (SPADE uses 16; 4 keeps the laptop quick start short while most Solver groups still differ in reward). CLI `--plays`. @default 4 */
    plays: z.number().int().min(1).max(1024).default(4),
    model: ModelSchema,
    solver: SolverSchema,
    levels: LevelsSchema,
    designer: DesignerSchema,
    reward: RewardSchema,
    advantages: AdvantagesSchema,
    corpus: CorpusSchema,
    sandbox: SandboxSchema,
    serve: ServeSchema,
    admission: AdmissionSchema,
    evolution: EvolutionSchema,
    trainer: TrainerSchema,
    schedule: ScheduleSchema,
    /** The environment packages that start a run's memory. */
    pool: PoolSchema,
    /** Terminal tasks (Harbor task folders) in the run, and their episodes' limits. */
    terminal: TerminalSchema,
    /** OpenEnv environment packages in the run's memory. */
    openenv: OpenEnvSchema,
    /** Held-out evaluation (`envforge eval`); every key has the CLI flag named beside it. */
    eval: EvalSchema,
    /** Metrics written beside `metrics.jsonl` while a run works. */
    metrics: MetricsSchema,
    /** Where the run's memory lives: the run folder's SQLite file, or a shared PostgreSQL database. */
    store: StoreSchema,
    /** The job queue shared with `envforge worker` processes (docs/deploy.md). */
    jobs: JobsSchema,
  })
  .strict()
  .refine((config) => new Set(config.admission.gates).size === config.admission.gates.length, {
    message: "admission.gates names a gate more than once",
    path: ["admission", "gates"],
  })
  .refine((config) => config.admission.gates.some((gate) => !config.admission.skip.includes(gate)), {
    message: "admission.skip leaves no gate to run; an empty pipeline would admit anything",
    path: ["admission", "skip"],
  })
  .refine((config) => config.admission.bandLow < config.admission.bandHigh, {
    message: "admission.bandLow must be below admission.bandHigh",
    path: ["admission", "bandLow"],
  })
  .refine((config) => config.evolution.frontier.releaseWins <= config.evolution.frontier.rollouts, {
    message: "evolution.frontier.releaseWins must not exceed evolution.frontier.rollouts",
    path: ["evolution", "frontier", "releaseWins"],
  })
  .refine((config) => !config.terminal.only || config.terminal.seeds !== null, {
    message: "terminal.only needs terminal.seeds (a folder of Harbor task folders): memory would start empty",
    path: ["terminal", "only"],
  })
  .refine((config) => config.pool.seeds || config.pool.packages.length > 0 || config.terminal.seeds !== null || config.openenv.packages !== null, {
    message: "pool.seeds is false and no pool.packages, terminal.seeds or openenv.packages are given: memory would start empty",
    path: ["pool", "seeds"],
  })
  .refine((config) => config.reward.anchorLow <= config.reward.anchorHigh, {
    message: "reward.anchorLow must not exceed reward.anchorHigh",
    path: ["reward", "anchorLow"],
  });

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
/** A partial configuration as written in a file. */
export type ConfigInput = z.input<typeof ConfigSchema>;
