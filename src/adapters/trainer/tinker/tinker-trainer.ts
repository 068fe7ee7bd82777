import {
  ConfigError,
  TrainerRequestError,
  type AdamParams,
  type Datum,
  type ForwardBackwardResult,
  type LossConfig,
  type SampleRequest,
  type SampleResult,
  type SamplingClient,
  type TrainingClient,
} from "../../../spec/index.js";
import type { TinkerHttp } from "./tinker-http.js";

/** Options of {@link TinkerTrainer.create}. */
export interface TinkerTrainerOptions {
  /** Base model name as the backend lists it (`get_server_capabilities`). */
  readonly baseModel: string;
  /** LoRA rank of the adapter. @default 8 */
  readonly loraRank?: number;
  /** Seed of the adapter initialisation. */
  readonly seed?: number;
  /** Policy version the client starts counting from (a resumed run passes its last). @default 0 */
  readonly policyVersion?: number;
  /** The backend announced `in_pass_importance_correction` in `get_server_capabilities` (the reference trainer does). @default false */
  readonly inPassImportanceCorrection?: boolean;
}

/** Tinker `loss_fn` and `loss_fn_config` of a {@link LossConfig}: PPO thresholds are ratio bounds `1 − ε_low`, `1 + ε_high`. */
export function tinkerLoss(loss: LossConfig): { loss_fn: string; loss_fn_config?: Record<string, number> } {
  const cap: Record<string, number> = loss.importanceCap === undefined ? {} : { importance_cap: loss.importanceCap };
  if (loss.kind === "importance_sampling") return { loss_fn: "importance_sampling", ...(loss.importanceCap === undefined ? {} : { loss_fn_config: cap }) };
  return { loss_fn: "ppo", loss_fn_config: { clip_low_threshold: 1 - loss.clipLow, clip_high_threshold: 1 + loss.clipHigh, ...cap } };
}

/** The Tinker wire form of a {@link Datum}; `mask` travels as `weights`. */
export function tinkerDatum(datum: Datum): unknown {
  const tensor = (data: readonly number[], dtype: "int64" | "float32") => ({ data, dtype, shape: [data.length] });
  return {
    model_input: { chunks: [{ type: "encoded_text", tokens: datum.modelInput }] },
    loss_fn_inputs: {
      target_tokens: tensor(datum.targetTokens, "int64"),
      logprobs: tensor(datum.logprobs, "float32"),
      advantages: tensor(datum.advantages, "float32"),
      weights: tensor(datum.mask, "float32"),
    },
  };
}

interface ForwardBackwardOutput {
  readonly loss_fn_outputs?: readonly { readonly logprobs?: { readonly data?: readonly number[] } }[];
  readonly metrics?: Record<string, number>;
}

/**
 * A {@link TrainingClient} that speaks the Tinker HTTP API (hosted Tinker, SkyRL's
 * Tinker server, the envforge reference trainer): one LoRA training run created
 * with `create_model`, then `forward`, `forward_backward`, `optim_step`,
 * `save_weights_for_sampler`, `save_weights` and `load_weights`, each a future.
 *
 * @throws TrainerUnavailableError when the backend cannot be reached
 * @throws TrainerRequestError when the backend rejects a request or an operation fails
 */
export class TinkerTrainer implements TrainingClient {
  readonly name = "tinker";
  private version: number;

  private constructor(
    private readonly http: TinkerHttp,
    /** The backend's id of this training run. */
    readonly modelId: string,
    readonly baseModel: string,
    policyVersion: number,
    /** Whether the backend applies `LossConfig.importanceCap` inside `forward_backward` (from its capabilities). */
    readonly inPassImportanceCorrection: boolean,
  ) {
    this.version = policyVersion;
  }

  /** Optimiser steps applied (counted from the version passed to {@link TinkerTrainer.create}). */
  get policyVersion(): number {
    return this.version;
  }

  /** Creates a LoRA training run on `options.baseModel`. */
  static async create(http: TinkerHttp, options: TinkerTrainerOptions): Promise<TinkerTrainer> {
    const session = await http.post<{ session_id?: string }>("/api/v1/create_session", { tags: ["envforge"], sdk_version: "envforge" });
    const body = {
      session_id: session.session_id,
      base_model: options.baseModel,
      lora_config: { rank: options.loraRank ?? 8, ...(options.seed === undefined ? {} : { seed: options.seed }) },
    };
    const submitted = await http.post<{ request_id?: string; model_id?: string }>("/api/v1/create_model", body);
    const result = await http.retrieve<{ model_id?: string }>(String(submitted.request_id));
    const modelId = result.model_id ?? submitted.model_id;
    if (typeof modelId !== "string") throw new TrainerRequestError("create_model answered without a model_id", { status: 200 });
    return new TinkerTrainer(http, modelId, options.baseModel, options.policyVersion ?? 0, options.inPassImportanceCorrection ?? false);
  }

  async forward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult> {
    const output = await this.http.postFuture<ForwardBackwardOutput>("/api/v1/forward", {
      model_id: this.modelId,
      forward_input: { data: datums.map(tinkerDatum), ...tinkerLoss(loss) },
    });
    return resultOf(datums.length, output);
  }

  /** Accumulates gradients; an empty batch sends nothing and reports loss null. */
  async forwardBackward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult> {
    if (datums.length === 0) return { datums: 0, loss: null };
    if (loss.importanceCap !== undefined && !this.inPassImportanceCorrection) {
      // a backend without the extension would ignore or refuse the key: never send it there
      throw new ConfigError("this trainer does not announce in_pass_importance_correction in get_server_capabilities: correct off-policy datums with forward first (LossConfig.importanceCap is for backends that announce it)");
    }
    const output = await this.http.postFuture<ForwardBackwardOutput>("/api/v1/forward_backward", {
      model_id: this.modelId,
      forward_backward_input: { data: datums.map(tinkerDatum), ...tinkerLoss(loss) },
    });
    return resultOf(datums.length, output);
  }

  async optimStep(adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    await this.http.postFuture("/api/v1/optim_step", {
      model_id: this.modelId,
      adam_params: { learning_rate: adam.learningRate, beta1: adam.beta1, beta2: adam.beta2, eps: adam.epsilon },
    });
    this.version += 1;
    return { policyVersion: this.version };
  }

  async saveWeightsForSampler(name: string): Promise<TinkerSamplingClient> {
    const result = await this.http.postFuture<{ path?: string }>("/api/v1/save_weights_for_sampler", { model_id: this.modelId, path: name });
    if (typeof result.path !== "string") throw new TrainerRequestError("save_weights_for_sampler answered without a path", { status: 200 });
    return new TinkerSamplingClient(this.http, result.path, this.baseModel);
  }

  /** A client sampling from the base model without any adapter. */
  baseSampler(): TinkerSamplingClient {
    return new TinkerSamplingClient(this.http, null, this.baseModel);
  }

  async saveState(name: string): Promise<string> {
    const result = await this.http.postFuture<{ path?: string }>("/api/v1/save_weights", { model_id: this.modelId, path: name });
    if (typeof result.path !== "string") throw new TrainerRequestError("save_weights answered without a path", { status: 200 });
    return result.path;
  }

  async loadState(path: string): Promise<void> {
    await this.http.postFuture("/api/v1/load_weights", { model_id: this.modelId, path });
  }

  /** Nothing to release: the backend keeps the run until it is unloaded or stopped. */
  async close(): Promise<void> {}
}

/** Samples through Tinker `asample` from published weights (`modelPath`) or the base model. */
export class TinkerSamplingClient implements SamplingClient {
  constructor(
    private readonly http: TinkerHttp,
    readonly modelPath: string | null,
    readonly baseModel: string,
  ) {}

  async sample(request: SampleRequest): Promise<SampleResult> {
    const body = {
      prompt: { chunks: [{ type: "encoded_text", tokens: request.promptTokens }] },
      sampling_params: {
        max_tokens: request.maxTokens,
        temperature: request.temperature,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
        ...(request.stop === undefined ? {} : { stop: request.stop }),
      },
      num_samples: request.numSamples ?? 1,
      prompt_logprobs: request.promptLogprobs ?? false,
      ...(this.modelPath === null ? { base_model: this.baseModel } : { model_path: this.modelPath }),
    };
    const output = await this.http.postFuture<{
      sequences?: readonly { tokens?: number[]; logprobs?: number[]; stop_reason?: string }[];
      prompt_logprobs?: (number | null)[] | null;
    }>("/api/v1/asample", body);
    if (!Array.isArray(output.sequences)) throw new TrainerRequestError("asample answered without sequences", { status: 200 });
    return {
      sequences: output.sequences.map((sequence) => ({
        tokens: sequence.tokens ?? [],
        logprobs: sequence.logprobs ?? [],
        stopReason: sequence.stop_reason === "length" ? "length" : "stop",
      })),
      promptLogprobs: output.prompt_logprobs ?? null,
    };
  }
}

function resultOf(datums: number, output: ForwardBackwardOutput): ForwardBackwardResult {
  const metrics = output.metrics ?? {};
  const loss = metrics["loss:sum"] ?? metrics["loss:mean"] ?? metrics.loss;
  return {
    datums,
    loss: typeof loss === "number" ? loss : null,
    metrics,
    logprobs: (output.loss_fn_outputs ?? []).map((entry) => entry.logprobs?.data ?? []),
  };
}
