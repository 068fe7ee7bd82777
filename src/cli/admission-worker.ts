import { parseConfig } from "../config/index.js";
import { admit, type AdmissionResult } from "../core/admission/index.js";
import { ConfigError, type Job, type JobHandler } from "../spec/index.js";
import { ENVFORGE_VERSION } from "../support/version.js";
import { AdmissionJobPayloadSchema, type AdmissionJobPayload } from "./admission-jobs.js";
import { buildAdmissionPipeline, type AdmissionPipeline } from "./admit-command.js";

/**
 * What a worker runs for `admission` jobs: builds the pipeline of a job's settings once (kept
 * open for the next job with the same settings: its sandbox and model) and admits the candidate
 * against the job's pool. Returns the {@link AdmissionResult}.
 */
export function admissionJobHandler(): { readonly handler: JobHandler; close(): Promise<void> } {
  const pipelines = new Map<string, Promise<AdmissionPipeline>>();
  const handler: JobHandler = async (job: Job) => {
    const parsed = AdmissionJobPayloadSchema.safeParse(job.payload);
    if (!parsed.success) throw new ConfigError(`admission job ${job.key}: malformed payload: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const payload = parsed.data as unknown as AdmissionJobPayload;
    // the same inputs must give the same verdict: a result of other code would be stored under the key
    if (payload.envforgeVersion !== ENVFORGE_VERSION) throw new ConfigError(`admission job ${job.key}: enqueued by envforge ${payload.envforgeVersion}, this worker runs ${ENVFORGE_VERSION}; run workers of the same version`);
    const settings = JSON.stringify([payload.config, payload.gates, payload.model, payload.benchmarkPath]);
    let pipeline = pipelines.get(settings);
    if (pipeline === undefined) {
      const config = parseConfig(payload.config, "the admission job's config");
      pipeline = buildAdmissionPipeline(config, { ...(payload.gates === null ? {} : { gates: payload.gates }), ...(payload.model === null ? {} : { model: payload.model }) }, payload.benchmarkPath);
      pipelines.set(settings, pipeline);
      pipeline.catch(() => pipelines.delete(settings));
    }
    const ready = await pipeline;
    const candidate = payload.poolIndex === null ? payload.candidate : (payload.pool[payload.poolIndex] ?? payload.candidate);
    const result: AdmissionResult = await admit(candidate, ready.gates, { ...ready.context, pool: payload.pool });
    return result;
  };
  return {
    handler,
    async close() {
      for (const pipeline of pipelines.values()) await (await pipeline.catch(() => null))?.close();
    },
  };
}

