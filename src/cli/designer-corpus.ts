import { readCorpus, TOOLS_CORPUS_PATH } from "../adapters/corpus/index.js";
import type { Config } from "../config/index.js";
import type { CorpusDocument } from "../spec/index.js";

/**
 * The corpus that grounds the Designer: `corpus.path`, else the shipped one for the format (the tool corpus
 * for `designer.format: "tool"`, the sample corpus otherwise).
 * @throws CorpusError when the file or folder is missing or malformed
 */
export function designerCorpus(config: Pick<Config, "corpus" | "designer">): CorpusDocument[] {
  return readCorpus(config.corpus.path ?? (config.designer.format === "tool" ? TOOLS_CORPUS_PATH : null));
}
