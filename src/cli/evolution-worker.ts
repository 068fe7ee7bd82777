import { readCorpus } from "../adapters/corpus/index.js";
import { openModel } from "../adapters/llm/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { PostgresStore } from "../adapters/store/index.js";
import type { Config } from "../config/index.js";
import { jobConfig } from "./job-settings.js";
import { DEFAULT_RUBRICS_PATH, evolutionGates, evolutionSettingsFromConfig, evolveLineage, readRubrics, type LineageOutcome } from "../core/evolution/index.js";
import { LazyModel } from "../core/selfplay/index.js";
import { ConfigError, type Job, type JobHandler, type Sandbox } from "../spec/index.js";
import { ENVFORGE_VERSION } from "../support/version.js";
import { admissionResources } from "./admission-resources.js";
import { EvolutionJobPayloadSchema, type EvolutionJobPayload } from "./evolution-jobs.js";
import { modelOptionsOf } from "./model-options.js";

/** What every lineage a worker evolves shares: the worker's model and sandbox, opened at its first job. */
interface EvolutionHost {
  readonly model: LazyModel;
  readonly sandbox: Sandbox;
}

/**
 * What a worker runs for `evolution` jobs: opens the evolution's store (schema `payload.schema` of the
 * worker's own `--store` database) and evolves the lineage with {@link evolveLineage}, from where the
 * store stands, with the evolution's settings on the worker's own model, sandbox, corpus and rubrics
 * ({@link jobConfig}). Returns the
 * {@link LineageOutcome}. Terminal lineages are not run on workers (their task folders are on the
 * orchestrator's disk).
 */
export function evolutionJobHandler(storeUrl: string, worker: Config): { readonly handler: JobHandler; close(): Promise<void> } {
  let host: EvolutionHost | undefined;
  const handler: JobHandler = async (job: Job): Promise<LineageOutcome> => {
    const parsed = EvolutionJobPayloadSchema.safeParse(job.payload);
    if (!parsed.success) throw new ConfigError(`evolution job ${job.key}: malformed payload: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const payload = parsed.data as unknown as EvolutionJobPayload;
    if (payload.envforgeVersion !== ENVFORGE_VERSION) throw new ConfigError(`evolution job ${job.key}: enqueued by envforge ${payload.envforgeVersion}, this worker runs ${ENVFORGE_VERSION}; run workers of the same version`);
    // the job chooses the evolution settings; the sandbox, the model and every file path are the worker's own
    const config = jobConfig(worker, payload.config);
    host ??= { model: new LazyModel(worker.model.spec, () => openModel(worker.model.spec, modelOptionsOf(worker))), sandbox: openSandbox(worker.sandbox, (message) => process.stderr.write(`envforge worker: ${message}\n`)) };
    const { model, sandbox } = host;
    const store = new PostgresStore(storeUrl, payload.schema);
    try {
      const lineage = store.listLineages().find((record) => record.id === payload.lineageId);
      if (lineage === undefined) throw new ConfigError(`evolution job ${job.key}: lineage ${payload.lineageId} is not in schema ${payload.schema}`);
      if (lineage.seed.terminal !== undefined) throw new ConfigError(`evolution job ${job.key}: ${payload.lineageId} is a terminal lineage; its task folders are on the orchestrator's disk, so it evolves there (without --workers remote)`);
      const rubrics = readRubrics(config.evolution.rubrics ?? DEFAULT_RUBRICS_PATH);
      const corpus = readCorpus(config.corpus.path);
      return await evolveLineage(lineage, { model, sandbox, store, corpus, gates: evolutionGates(config.admission), admission: admissionResources(config), rubrics }, evolutionSettingsFromConfig(config));
    } finally {
      store.close();
    }
  };
  return {
    handler,
    async close() {
      await host?.sandbox.close();
      await host?.model.close();
    },
  };
}
