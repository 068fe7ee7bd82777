import { EnvforgeError, TrainerRequestError, type Datum, type LossConfig } from "../../../spec/index.js";
import type { TinkerHttp } from "./tinker-http.js";
import { TinkerTrainer, tinkerDatum } from "./tinker-trainer.js";

/** One conformance check and its outcome. */
export interface ConformanceCheck {
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
}

/** The suite's report, printed by `envforge trainer conformance --json`. */
export interface ConformanceReport {
  readonly passed: number;
  readonly failed: number;
  readonly checks: readonly ConformanceCheck[];
}

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** Base model to create the test run on; @default the first model `get_server_capabilities` lists */
  readonly baseModel?: string;
  /** Learning rate of the test step (large, so the change is measurable). @default 0.01 */
  readonly learningRate?: number;
  /** Absolute tolerance of loss comparisons. @default 1e-3 */
  readonly tolerance?: number;
}

const PPO: LossConfig = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 };
/** Toy sequence; ids below 64 so any vocabulary has them. */
const TOKENS = [2, 10, 11, 12, 13, 14];
const TARGETS = [10, 11, 12, 13, 14, 15];
const PROMPT = [2, 20, 21, 22, 23];

/**
 * Checks a Tinker-compatible training backend (issue 6, conformance suite):
 * 1. capabilities list `ppo` and `importance_sampling` and declare the loss reduction;
 * 2. the PPO loss on a toy datum equals a hand computation, with the upper clip
 *    threshold honoured (ratio 3 with a positive advantage counts as 1 + ε_high) and
 *    the lower one (ratio 0.5 with a negative advantage counts as 1 − ε_low);
 * 3. the declared reduction (`sum`, or per-sequence `mean`) is what the backend does;
 * 4. one Adam step on positive advantages raises the learner logprobs of those tokens;
 * 5. after publishing weights, prompt logprobs of a fixed prompt differ from those
 *    published before the step (catches silent weight-sync no-ops);
 * 6. bad requests (unknown model, out-of-vocabulary token, unknown loss) come back as
 *    typed, non-retryable errors.
 * Every check runs even when an earlier one failed; a check that throws fails with the error.
 */
export async function runConformance(http: TinkerHttp, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  const tolerance = options.tolerance ?? 1e-3;
  const check = async (name: string, body: () => Promise<string>): Promise<void> => {
    try {
      checks.push({ name, passed: true, detail: await body() });
    } catch (error) {
      checks.push({ name, passed: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };

  let reduction = "sum";
  let baseModel = options.baseModel;
  await check("capabilities", async () => {
    const capabilities = await http.get<{ supported_models?: { model_name?: string }[]; supported_loss_fns?: string[]; loss_reduction?: string }>(
      "/api/v1/get_server_capabilities",
    );
    baseModel ??= capabilities.supported_models?.[0]?.model_name;
    const losses = capabilities.supported_loss_fns ?? [];
    for (const loss of ["ppo", "importance_sampling"]) if (!losses.includes(loss)) throw new Error(`loss ${loss} not supported (${losses.join(", ")})`);
    reduction = capabilities.loss_reduction ?? "sum";
    if (reduction !== "sum" && reduction !== "mean") throw new Error(`unknown loss_reduction ${reduction}`);
    return `model ${baseModel}, losses ${losses.join(", ")}, reduction ${reduction}${capabilities.loss_reduction ? "" : " (undeclared; Tinker's sum assumed)"}`;
  });
  if (baseModel === undefined) return summarise([...checks, { name: "create_model", passed: false, detail: "no base model known; pass --base-model" }]);

  const trainer = await TinkerTrainer.create(http, { baseModel, loraRank: 4, seed: 7 });
  const before = await trainer.saveWeightsForSampler("conformance-before");
  const probe: Datum = { modelInput: TOKENS, targetTokens: TARGETS, logprobs: zeros(6), advantages: zeros(6), mask: zeros(6) };
  const learner = (await trainer.forward([probe], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 })).logprobs?.[0] ?? [];

  await check("ppo loss and clipping", async () => {
    if (learner.length !== TOKENS.length) throw new Error(`forward returned ${learner.length} logprobs for ${TOKENS.length} tokens`);
    // ratios: 3 (A=+1, clipped to 1.28), 1 (A=+1), 0.5 (A=−1, clipped to 0.8), masked, 1 (A=+1), masked
    const sampler = [learner[0]! - Math.log(3), learner[1]!, learner[2]! + Math.log(2), learner[3]!, learner[4]!, learner[5]!];
    const datum: Datum = { modelInput: TOKENS, targetTokens: TARGETS, logprobs: sampler, advantages: [1, 1, -1, 0, 1, 0], mask: [1, 1, 1, 0, 1, 0] };
    const expectedSum = -(1.28 + 1 - 0.8 + 1);
    const expected = reduction === "sum" ? expectedSum : expectedSum / 4;
    const result = await trainer.forwardBackward([datum], PPO);
    if (result.loss === null) throw new Error("forward_backward reported no loss metric (loss:sum)");
    if (Math.abs(result.loss - expected) > tolerance) {
      const unclipped = -(3 + 1 - 0.5 + 1);
      throw new Error(`loss ${result.loss.toFixed(4)}, expected ${expected.toFixed(4)}${Math.abs(result.loss - unclipped) < tolerance ? " (the clip thresholds were ignored)" : ""}`);
    }
    return `loss ${result.loss.toFixed(4)} = hand ${expected.toFixed(4)} (upper clip 1.28 and lower clip 0.8 honoured)`;
  });

  await check("loss reduction", async () => {
    const ones: Datum = { modelInput: TOKENS, targetTokens: TARGETS, logprobs: learner, advantages: [1, 1, 1, 1, 1, 1], mask: [1, 1, 1, 1, 1, 1] };
    const pair = await trainer.forwardBackward([ones, ones], PPO);
    const expected = reduction === "sum" ? -12 : -2;
    if (pair.loss === null || Math.abs(pair.loss - expected) > tolerance * 10) {
      throw new Error(`two datums of 6 tokens at ratio 1, advantage 1: loss ${pair.loss}, expected ${expected} for reduction ${reduction}`);
    }
    return `loss ${pair.loss.toFixed(4)} matches reduction ${reduction}`;
  });

  let after: Awaited<ReturnType<TinkerTrainer["saveWeightsForSampler"]>> | undefined;
  await check("gradient direction", async () => {
    await trainer.optimStep({ learningRate: options.learningRate ?? 0.01, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 });
    const updated = (await trainer.forward([probe], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 })).logprobs?.[0] ?? [];
    const total = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0);
    const change = total(updated) - total(learner);
    if (!(change > 0)) throw new Error(`summed logprob of positively-advantaged tokens changed by ${change.toFixed(5)}; expected an increase`);
    after = await trainer.saveWeightsForSampler("conformance-after");
    return `summed target logprob rose by ${change.toFixed(4)} nats after one step`;
  });

  await check("weight sync", async () => {
    if (after === undefined) throw new Error("no weights were published after the step");
    const request = { promptTokens: PROMPT, maxTokens: 1, temperature: 0, promptLogprobs: true } as const;
    const old = (await before.sample(request)).promptLogprobs ?? [];
    const fresh = (await after.sample(request)).promptLogprobs ?? [];
    if (old.length !== PROMPT.length || fresh.length !== PROMPT.length) throw new Error("sampler returned no prompt logprobs");
    const change = Math.max(...old.map((value, index) => Math.abs((value ?? 0) - (fresh[index] ?? 0))));
    if (!(change > 1e-4)) throw new Error(`prompt logprobs unchanged after publishing new weights (max change ${change})`);
    return `prompt logprobs moved by up to ${change.toFixed(4)} nats between published weights`;
  });

  await check("typed errors", async () => {
    const bad = async (what: string, request: () => Promise<unknown>): Promise<string> => {
      try {
        await request();
      } catch (error) {
        if (error instanceof TrainerRequestError && !error.retryable && error.status >= 400 && error.status < 500) return `${what}: HTTP ${error.status}`;
        throw new Error(`${what}: expected a non-retryable 4xx TrainerRequestError, got ${error instanceof EnvforgeError ? `${error.code} (retryable ${error.retryable})` : String(error)}`);
      }
      throw new Error(`${what}: the backend accepted it`);
    };
    const outOfVocabulary = { ...probe, modelInput: [2, 1_000_000_000, 11, 12, 13, 14] };
    const results = [
      await bad("unknown model", () => http.postFuture("/api/v1/forward_backward", { model_id: "model_missing", forward_backward_input: { data: [tinkerDatum(probe)], loss_fn: "ppo" } })),
      await bad("token outside the vocabulary", () => trainer.forwardBackward([outOfVocabulary], PPO)),
      await bad("unknown loss", () => http.postFuture("/api/v1/forward_backward", { model_id: trainer.modelId, forward_backward_input: { data: [tinkerDatum(probe)], loss_fn: "no_such_loss" } })),
    ];
    return results.join("; ");
  });
  return summarise(checks);
}

function zeros(length: number): number[] {
  return Array.from({ length }, () => 0);
}

function summarise(checks: readonly ConformanceCheck[]): ConformanceReport {
  const passed = checks.filter((entry) => entry.passed).length;
  return { passed, failed: checks.length - passed, checks };
}
