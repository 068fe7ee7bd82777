/**
 * Weight sync adapters: published trainer weights into a sampling engine, and the policy that
 * samples on that engine.
 * @module
 */
export { EnginePolicy, type EnginePolicyOptions, type TokenSamplingEngine } from "./engine-policy.js";
export { LlamaCppLoraSync, type LlamaCppLoraSyncOptions, type LoraEngine } from "./llamacpp-lora-sync.js";
export { checkEngineTrainerSync, DEFAULT_SYNC_TOLERANCE, type SyncCheckResult, type TokenScoringEngine } from "./sync-check.js";
export { exportGgufLora, EXPORT_GGUF_LORA_ROUTE, type GgufLoraExport, type GgufLoraExportRequest } from "./trainer-lora-export.js";
