/**
 * Weight sync adapters: published trainer weights into a sampling engine (llama.cpp GGUF LoRA
 * files; vLLM and SGLang runtime LoRA loading), the engines that sample on them, and the policy
 * that samples on an engine.
 * @module
 */
export { EnginePolicy, type EnginePolicyOptions, type TokenSamplingEngine } from "./engine-policy.js";
export { LlamaCppLoraSync, type LlamaCppLoraSyncOptions, type LoraEngine } from "./llamacpp-lora-sync.js";
export { checkEngineTrainerSync, DEFAULT_SYNC_TOLERANCE, type SyncCheckResult, type TokenScoringEngine } from "./sync-check.js";
export {
  exportGgufLora,
  exportPeftLora,
  EXPORT_GGUF_LORA_ROUTE,
  EXPORT_PEFT_LORA_ROUTE,
  type GgufLoraExport,
  type GgufLoraExportRequest,
  type PeftLoraExport,
  type PeftLoraExportRequest,
} from "./trainer-lora-export.js";
export { INFERENCE_SERVER_NAMES, LORA_ROUTES, serverRootOf, type InferenceServerKind } from "./inference-server.js";
export { checkPeftAdapter, PEFT_CONFIG_FILE, PEFT_WEIGHTS_FILE, type PeftAdapterSummary } from "./peft-adapter-check.js";
export { ServerLoraSync, type ServerLoraSyncOptions } from "./server-lora-sync.js";
export {
  openServerSamplingEngine,
  SglangSamplingEngine,
  VllmSamplingEngine,
  type ServerSamplingEngine,
  type ServerSamplingEngineOptions,
} from "./server-sampling-engine.js";
