import { TrainerRequestError } from "../../spec/index.js";
import type { TinkerHttp } from "../trainer/index.js";

/** The trainer route that writes a GGUF LoRA adapter (envforge's own, outside the Tinker API). */
export const EXPORT_GGUF_LORA_ROUTE = "/envforge/v1/export_gguf_lora";

/** One export: the live adapter of `modelId`, or the published `samplerPath`; exactly one. */
export type GgufLoraExportRequest =
  | { readonly modelId: string; readonly samplerPath?: undefined; readonly path: string }
  | { readonly samplerPath: string; readonly modelId?: undefined; readonly path: string };

/** What the trainer wrote. */
export interface GgufLoraExport {
  /** Absolute path of the adapter file. */
  readonly path: string;
  /** `general.architecture`, e.g. `gemma3`. */
  readonly architecture: string;
  readonly rank: number;
  /** `adapter.lora.alpha`: peft's scaling times the rank. */
  readonly alpha: number;
  /** Tensors in the file (two per adapted layer). */
  readonly tensors: number;
  /** File size in bytes. */
  readonly bytes: number;
}

/**
 * Asks the reference trainer to write its adapter as a llama.cpp GGUF LoRA file at
 * `request.path` (absolute, ending in `.gguf`, on the trainer's file system). The trainer
 * runs the export after any queued training operation and answers once the file is in
 * place (it is written aside and renamed, so it is never seen half-written).
 *
 * @throws TrainerUnavailableError when the trainer cannot be reached
 * @throws TrainerRequestError with status 404 for an unknown model id, 400 for a path that
 *   cannot be written (`path_not_writable`), an architecture without a GGUF LoRA mapping
 *   (`unsupported_architecture`) or a missing sampler checkpoint
 */
export async function exportGgufLora(http: TinkerHttp, request: GgufLoraExportRequest): Promise<GgufLoraExport> {
  const body = {
    path: request.path,
    ...(request.modelId === undefined ? {} : { model_id: request.modelId }),
    ...(request.samplerPath === undefined ? {} : { sampler_path: request.samplerPath }),
  };
  const answer = await http.post<Partial<GgufLoraExport>>(EXPORT_GGUF_LORA_ROUTE, body);
  if (typeof answer.path !== "string" || typeof answer.rank !== "number") {
    throw new TrainerRequestError(`${EXPORT_GGUF_LORA_ROUTE} answered without path and rank: ${JSON.stringify(answer).slice(0, 200)}`, { status: 200 });
  }
  return answer as GgufLoraExport;
}

/** The trainer route that writes the live adapter as a peft adapter folder (envforge's own, outside the Tinker API). */
export const EXPORT_PEFT_LORA_ROUTE = "/envforge/v1/export_peft_lora";

/** One peft export: the live adapter of `modelId` into the folder `path`. */
export interface PeftLoraExportRequest {
  /** The trainer's id of the training run (`TinkerTrainer.modelId`). */
  readonly modelId: string;
  /** Absolute folder path on the trainer's file system; its parent must exist; an existing folder is replaced. */
  readonly path: string;
}

/** What the trainer wrote: `adapter_config.json` and `adapter_model.safetensors` in `path`. */
export interface PeftLoraExport {
  /** Absolute path of the adapter folder. */
  readonly path: string;
  /** LoRA rank `r`. */
  readonly rank: number;
  /** peft's `lora_alpha` (the factor on `B·A` is `lora_alpha / r`). */
  readonly alpha: number;
  /** Adapted module names as written in `adapter_config.json`, e.g. `q_proj`. */
  readonly targetModules: readonly string[];
  /** Tensors in `adapter_model.safetensors` (two per adapted layer). */
  readonly tensors: number;
  /** Size of each file written, bytes, by file name. */
  readonly files: Readonly<Record<string, number>>;
  /** Total size of the files, bytes. */
  readonly bytes: number;
}

/**
 * Asks the reference trainer to write its live adapter as a peft adapter folder at
 * `request.path` (what `PeftModel.save_pretrained` writes, and what vLLM's
 * `/v1/load_lora_adapter` and SGLang's `/load_lora_adapter` read). The trainer runs the
 * export after any queued training operation and answers once the folder is in place (it is
 * written aside and renamed, so a server never reads it half-written).
 *
 * @throws TrainerUnavailableError when the trainer cannot be reached
 * @throws TrainerRequestError with status 404 for an unknown model id (or a trainer without the
 *   route, such as hosted Tinker), 400 with `path_not_writable` for a relative path, a missing
 *   parent folder or a path that names a file
 */
export async function exportPeftLora(http: TinkerHttp, request: PeftLoraExportRequest): Promise<PeftLoraExport> {
  const answer = await http.post<{ path?: unknown; rank?: unknown; alpha?: unknown; target_modules?: unknown; tensors?: unknown; files?: unknown; bytes?: unknown }>(
    EXPORT_PEFT_LORA_ROUTE,
    { model_id: request.modelId, path: request.path },
  );
  if (typeof answer.path !== "string" || typeof answer.rank !== "number" || typeof answer.alpha !== "number" || !Array.isArray(answer.target_modules)) {
    throw new TrainerRequestError(`${EXPORT_PEFT_LORA_ROUTE} answered without path, rank, alpha and target_modules: ${JSON.stringify(answer).slice(0, 200)}`, { status: 200 });
  }
  return {
    path: answer.path,
    rank: answer.rank,
    alpha: answer.alpha,
    targetModules: answer.target_modules.map(String),
    tensors: typeof answer.tensors === "number" ? answer.tensors : 0,
    files: (answer.files ?? {}) as Record<string, number>,
    bytes: typeof answer.bytes === "number" ? answer.bytes : 0,
  };
}
