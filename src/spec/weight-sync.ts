/**
 * Weight sync: loading the weights the trainer published after a step into the
 * sampling engine, so the next samples come from the new policy (slime, verl and
 * SkyRL keep sampling and training in separate engines the same way).
 */

/** One sync request: which published weights to load. */
export interface WeightSyncRequest {
  /** Name of this version of the weights, e.g. `step-3` (letters, digits, `_`, `-`). */
  readonly name: string;
  /** Policy version (optimiser steps) the weights belong to; carried into the result. */
  readonly policyVersion: number;
}

/** What a sync did, with its cost. */
export interface WeightSyncResult {
  readonly name: string;
  readonly policyVersion: number;
  /** Where the engine loaded the weights from (an adapter file, a server-side name). */
  readonly location: string;
  /** Milliseconds the trainer took to publish (export) the weights. */
  readonly exportMs: number;
  /** Milliseconds the engine took to load them. */
  readonly loadMs: number;
}

/**
 * Moves published trainer weights into a sampling engine. Implementations: the
 * llama.cpp LoRA sync (GGUF adapter files); vLLM and SGLang LoRA routes on clusters.
 *
 * @throws TrainerUnavailableError / TrainerRequestError when the trainer cannot publish
 * @throws LoraAdapterError when the engine refuses the published adapter
 */
export interface WeightSync {
  /** Implementation name, e.g. `llamacpp-lora`. */
  readonly name: string;
  /** Publishes the trainer's current weights and loads them into the engine. */
  sync(request: WeightSyncRequest): Promise<WeightSyncResult>;
}
