import { createHash } from "node:crypto";
import { z } from "zod";
import type { Config } from "../config/index.js";
import type { AdmissionResult } from "../core/admission/index.js";
import { ConfigError, type CorpusDocument, type EnvPackage, type JobOutcome, type JobQueue } from "../spec/index.js";
import { ENVFORGE_VERSION } from "../support/version.js";

/**
 * An admission job: one candidate, the novelty pool it is admitted against, and the settings
 * (the resolved config, and whether gates and a model were asked for), so every worker builds the
 * same gates. The worker takes only the job's run settings from the config (see `jobConfig`): its
 * sandbox, model and files (`admission.benchmarkPath`, `admission.rubricPath`) are its own.
 */
export interface AdmissionJobPayload {
  readonly candidate: EnvPackage;
  readonly pool: readonly EnvPackage[];
  /**
   * The candidate's index in `pool` when it is that pool member itself (a seed admitted against the
   * seeds): admission leaves the candidate itself out of the novelty pool, while a copy of a member
   * is an `exact_copy`; JSON cannot tell the two apart, this index does. null: not a member.
   */
  readonly poolIndex: number | null;
  readonly config: Config;
  /** `--gates` as given (null: the config's gates; the model-based ones are left out without a model). */
  readonly gates: string | null;
  /** `--model` as given (null: the model-based gates do not run; else they run with the worker's `model.spec`). */
  readonly model: string | null;
  /**
   * The decontamination gate's benchmark texts, read by the enqueuer (its `--benchmarks`, or a corpus
   * folder's `benchmarks.jsonl`): texts travel, paths do not. null: the worker's own `admission.benchmarkPath`.
   */
  readonly benchmarks: readonly CorpusDocument[] | null;
  /** The enqueuer's envforge version: part of the key, and a worker of another version refuses the job. */
  readonly envforgeVersion: string;
}

/** The shape an admission job's payload is checked against before a worker uses it. */
export const AdmissionJobPayloadSchema = z.object({
  candidate: z.object({ manifest: z.object({ name: z.string() }).passthrough() }).passthrough(),
  pool: z.array(z.unknown()),
  poolIndex: z.number().int().min(0).nullable(),
  config: z.unknown(),
  gates: z.string().nullable(),
  model: z.string().nullable(),
  benchmarks: z.array(z.object({ id: z.string(), text: z.string(), title: z.string().optional() }).strict()).nullable(),
  envforgeVersion: z.string(),
});

/**
 * The admission job of `candidate` against `pool` under `config`: the store's URL (and any password
 * in it) is left out, the candidate's place in the pool kept, the version stamped.
 */
export function admissionPayload(
  candidate: EnvPackage,
  pool: readonly EnvPackage[],
  config: Config,
  options: { readonly gates?: string; readonly model?: string; readonly benchmarks?: readonly CorpusDocument[] | null },
): AdmissionJobPayload {
  return {
    candidate,
    pool,
    poolIndex: pool.includes(candidate) ? pool.indexOf(candidate) : null,
    config: { ...config, store: { url: null } },
    gates: options.gates ?? null,
    model: options.model ?? null,
    benchmarks: options.benchmarks ?? null,
    envforgeVersion: ENVFORGE_VERSION,
  };
}

/**
 * The idempotency key of an admission job: a hash of its whole payload (and `batch`), so the same
 * candidate under the same settings is admitted once however often it is enqueued; a new `batch`
 * admits it again.
 */
export function admissionJobKey(payload: AdmissionJobPayload, batch = ""): string {
  return createHash("sha256").update(batch).update("\0").update(JSON.stringify(payload)).digest("hex");
}

/**
 * Admits `payloads` on the workers of `queue`: enqueues one job each and waits for every
 * result, reporting each as it arrives. A job that failed for good is an error.
 * @returns the results in the order of `payloads`
 * @throws ConfigError naming the first candidate whose job failed after its retries
 */
export async function admitOnWorkers(
  queue: JobQueue,
  payloads: readonly AdmissionJobPayload[],
  options: { readonly batch?: string; readonly onOutcome?: (done: number, total: number, outcome: JobOutcome) => void; readonly onWaiting?: (status: { readonly done: number; readonly pending: number; readonly queued: number; readonly active: number }) => void } = {},
): Promise<AdmissionResult[]> {
  const keys = payloads.map((payload) => admissionJobKey(payload, options.batch));
  await queue.enqueue(
    "admission",
    payloads.map((payload, index) => ({ key: keys[index]!, payload })),
  );
  let done = 0;
  const outcomes = await queue.wait("admission", [...new Set(keys)], {
    onOutcome: (outcome) => options.onOutcome?.(++done, new Set(keys).size, outcome),
    ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
  });
  return keys.map((key, index) => {
    const outcome = outcomes.get(key);
    if (outcome === undefined || outcome.state === "failed") {
      throw new ConfigError(`the admission job of ${payloads[index]!.candidate.manifest.name} failed on the workers: ${outcome?.state === "failed" ? outcome.error : "no outcome"}`);
    }
    return outcome.result as AdmissionResult;
  });
}
