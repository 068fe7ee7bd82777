import { pass, reject, type TerminalTask } from "../../../spec/index.js";
import { minHashSignature, minHashSimilarity, noveltyTokens } from "../minhash.js";
import type { TerminalGate } from "./terminal-gate.js";

/** The MinHash signature of a terminal task: its instruction, tests and solution. */
export function terminalSignature(task: TerminalTask): Uint32Array {
  return minHashSignature(noveltyTokens(task.instruction, task.tests, task.solution ?? ""));
}

/**
 * Text novelty of a terminal task: the MinHash Jaccard of its instruction, tests and solution
 * against every pool task must stay below `admission.textSimilarity` (as for environment
 * programs; EvoEnv's de-duplication of candidates). Reason: `text_near_duplicate`.
 */
export function terminalNoveltyGate(): TerminalGate {
  return {
    name: "novelty",
    async check(task, context) {
      const signature = terminalSignature(task);
      let nearest = { name: "", similarity: 0 };
      for (const other of context.pool ?? []) {
        if (other.folder === task.folder) continue;
        const similarity = minHashSimilarity(signature, terminalSignature(other));
        if (similarity > nearest.similarity) nearest = { name: other.name, similarity };
      }
      if (nearest.similarity >= context.settings.textSimilarity) {
        return reject("novelty", "text_near_duplicate", `instruction, tests and solution are ${nearest.similarity.toFixed(2)} similar to ${nearest.name} (limit ${context.settings.textSimilarity})`, nearest);
      }
      return pass("novelty", { nearest });
    },
  };
}
