/**
 * Trainer backends.
 * @module
 */
export { NoopTrainer } from "./noop-trainer.js";
export { TinkerHttp, type TinkerHttpOptions } from "./tinker/tinker-http.js";
export { TinkerTrainer, TinkerSamplingClient, tinkerDatum, tinkerLoss, type TinkerTrainerOptions } from "./tinker/tinker-trainer.js";
export { TinkerLanguageModel, ReferenceTrainerTokenizer, type ChatTokenizer } from "./tinker/tinker-language-model.js";
export { LocalChatTokenizer, TOKENIZER_FILES } from "./tinker/local-chat-tokenizer.js";
export { runConformance, type ConformanceCheck, type ConformanceOptions, type ConformanceReport } from "./tinker/conformance.js";
export {
  REFERENCE_TRAINER_DIR,
  REFERENCE_TRAINER_FILES,
  referenceTrainerStatus,
  startReferenceTrainer,
  stopReferenceTrainer,
  TINY_RANDOM_MODEL,
  type ReferenceTrainerOptions,
  type ReferenceTrainerState,
} from "./reference/reference-trainer-process.js";
export { convertedModelFolder, openReferenceTokenizerMirror, REFERENCE_FALLBACK_TEMPLATE, type TokenizerMirror } from "./reference/reference-tokenizer-mirror.js";
