import { pass, reject, type CorpusDocument, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle } from "./oracle-gate.js";

/** Lower-case word tokens (letters and digits) of a text. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Every n-gram of consecutive word tokens of `text`, joined by single spaces. */
export function wordNgrams(text: string, n: number): string[] {
  const tokens = wordTokens(text);
  const grams: string[] = [];
  for (let start = 0; start + n <= tokens.length; start += 1) grams.push(tokens.slice(start, start + n).join(" "));
  return grams;
}

const indexes = new WeakMap<readonly CorpusDocument[], Map<number, Map<string, string>>>();

/** n-gram → benchmark document id, built once per benchmark set and n. */
function benchmarkIndex(texts: readonly CorpusDocument[], n: number): Map<string, string> {
  let byLength = indexes.get(texts);
  if (byLength === undefined) {
    byLength = new Map();
    indexes.set(texts, byLength);
  }
  let index = byLength.get(n);
  if (index === undefined) {
    index = new Map();
    for (const document of texts) for (const gram of wordNgrams(document.text, n)) if (!index.has(gram)) index.set(gram, document.id);
    byLength.set(n, index);
  }
  return index;
}

/**
 * Gate 10, decontamination: no word n-gram (default 13, the GPT-3 paper's
 * contamination test) of the environment's prompts (title, description, hint)
 * or of the observations of the oracle's episodes on the seeds appears in the
 * user-supplied benchmark texts. Passes trivially without a benchmark set.
 * Reason codes: `benchmark_overlap` (evidence: benchmark document id, the
 * n-gram, where it was found), `load_failed`.
 */
export function decontaminationGate(): AdmissionGate {
  return { name: "decontamination", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const texts = context.benchmarkTexts ?? [];
  if (texts.length === 0) return pass("decontamination", { benchmarkTexts: 0 });
  const n = context.settings.contaminationNgram;
  const index = benchmarkIndex(texts, n);
  const { title, description, hint } = candidate.manifest;
  const sources: [string, string][] = [["title", title], ["description", description], ["hint", hint]];
  // the oracle's episodes (played once per candidate and shared with the oracle gate) supply the observations
  const played = await playOracle(candidate, context);
  if (played.kind !== "ok") return reject("decontamination", "load_failed", `env.py or oracle.py failed to load: ${played.message}`, { kind: played.kind });
  for (const episode of played.value) {
    sources.push([`first observation of seed ${episode.seed}`, episode.initialObservation]);
    for (const [turn, step] of episode.turns.entries()) sources.push([`observation ${turn + 1} of seed ${episode.seed}`, step.observation]);
  }
  for (const [where, text] of sources) {
    for (const gram of wordNgrams(text, n)) {
      const document = index.get(gram);
      if (document !== undefined) {
        return reject("decontamination", "benchmark_overlap", `the ${where} shares a ${n}-gram with benchmark text ${document}`, { document, ngram: gram, where });
      }
    }
  }
  return pass("decontamination", { benchmarkTexts: texts.length, ngram: n, checked: sources.length });
}
