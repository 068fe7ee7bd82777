/**
 * Corpus readers: JSONL files and folders of text files.
 * @module
 */
export * from "./read-corpus.js";
export * from "./read-rubric.js";
