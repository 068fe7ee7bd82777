/**
 * Language model providers: embedded llama.cpp and OpenAI-compatible HTTP.
 * @module
 */
export * from "./embedded-model.js";
export * from "./llamacpp-model.js";
export * from "./gguf-lora-check.js";
export * from "./openai-model.js";
export * from "./open-model.js";
