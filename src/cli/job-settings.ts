import { parseConfig, type Config } from "../config/index.js";

/**
 * The config a worker runs a job with: the worker's own (its `--config`: sandbox, model, store,
 * corpus, trainer, file paths), with only the job's run settings taken over: `seed`, `plays`, the
 * `solver`, `levels`, `admission` and `evolution` sections, less every file path in them
 * (`admission.benchmarkPath`, `admission.rubricPath`, `evolution.rubrics`, `evolution.frontier`),
 * which stay the worker's. A job is untrusted input: it cannot choose how the worker isolates
 * code, which model it calls, or which of its files it reads.
 *
 * @param jobSettings the config the job carries (validated here)
 * @throws ConfigError when the job's config is not a valid config
 */
export function jobConfig(worker: Config, jobSettings: unknown): Config {
  const job = parseConfig(jobSettings, "the job's settings");
  return parseConfig({
    ...worker,
    seed: job.seed,
    plays: job.plays,
    solver: job.solver,
    levels: job.levels,
    admission: { ...job.admission, benchmarkPath: worker.admission.benchmarkPath, rubricPath: worker.admission.rubricPath },
    evolution: { ...job.evolution, rubrics: worker.evolution.rubrics, frontier: worker.evolution.frontier },
  }, "the worker's config with the job's settings");
}
