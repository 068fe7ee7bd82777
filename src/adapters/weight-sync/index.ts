/**
 * Weight sync adapters: published trainer weights into a sampling engine.
 * @module
 */
export { LlamaCppLoraSync, type LlamaCppLoraSyncOptions, type LoraEngine } from "./llamacpp-lora-sync.js";
export { exportGgufLora, EXPORT_GGUF_LORA_ROUTE, type GgufLoraExport, type GgufLoraExportRequest } from "./trainer-lora-export.js";
