import type { Config } from "../config/index.js";
import { admit, type AdmissionResult } from "../core/admission/index.js";
import { ConfigError, type Job, type JobHandler } from "../spec/index.js";
import { ENVFORGE_VERSION } from "../support/version.js";
import { AdmissionJobPayloadSchema, type AdmissionJobPayload } from "./admission-jobs.js";
import { buildAdmissionPipeline, type AdmissionPipeline } from "./admit-command.js";
import { jobConfig } from "./job-settings.js";

/** Pipelines (each with its sandbox and maybe a model) a worker keeps open for the next jobs with the same settings. */
const MAX_PIPELINES = 4;

/**
 * What a worker runs for `admission` jobs: builds the pipeline of a job's settings once (kept
 * open for the next job with the same settings: its sandbox and model; at most four) and admits the
 * candidate against the job's pool. The job's gates and admission settings apply, on the worker's own
 * sandbox, model and files ({@link jobConfig}); with `--model` on the enqueuer the model-based gates
 * run with the worker's `model.spec`. Returns the {@link AdmissionResult}.
 */
export function admissionJobHandler(worker: Config): { readonly handler: JobHandler; close(): Promise<void> } {
  const pipelines = new Map<string, Promise<AdmissionPipeline>>();
  const handler: JobHandler = async (job: Job) => {
    const parsed = AdmissionJobPayloadSchema.safeParse(job.payload);
    if (!parsed.success) throw new ConfigError(`admission job ${job.key}: malformed payload: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const payload = parsed.data as unknown as AdmissionJobPayload;
    // the same inputs must give the same verdict: a result of other code would be stored under the key
    if (payload.envforgeVersion !== ENVFORGE_VERSION) throw new ConfigError(`admission job ${job.key}: enqueued by envforge ${payload.envforgeVersion}, this worker runs ${ENVFORGE_VERSION}; run workers of the same version`);
    // the job chooses gates and their settings; the sandbox, the model and every file path are the worker's own
    const config = jobConfig(worker, payload.config);
    const settings = JSON.stringify([config.admission, config.solver, config.seed, payload.gates, payload.model !== null]);
    let pipeline = pipelines.get(settings);
    if (pipeline === undefined) {
      pipeline = buildAdmissionPipeline(config, { ...(payload.gates === null ? {} : { gates: payload.gates }), ...(payload.model === null ? {} : { model: config.model.spec }) }, config.admission.benchmarkPath);
      pipelines.set(settings, pipeline);
      pipeline.catch(() => pipelines.delete(settings));
      // a few settings at a time: the oldest pipeline (its sandbox and model) is closed beyond that
      if (pipelines.size > MAX_PIPELINES) {
        const [oldest, closing] = pipelines.entries().next().value as [string, Promise<AdmissionPipeline>];
        pipelines.delete(oldest);
        void closing.then((open) => open.close()).catch(() => undefined);
      }
    }
    const ready = await pipeline;
    const candidate = payload.poolIndex === null ? payload.candidate : (payload.pool[payload.poolIndex] ?? payload.candidate);
    const result: AdmissionResult = await admit(candidate, ready.gates, { ...ready.context, pool: payload.pool, ...(payload.benchmarks === null ? {} : { benchmarkTexts: payload.benchmarks }) });
    return result;
  };
  return {
    handler,
    async close() {
      for (const pipeline of pipelines.values()) await (await pipeline.catch(() => null))?.close();
    },
  };
}

