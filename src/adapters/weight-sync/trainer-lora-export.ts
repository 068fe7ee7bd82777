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
