import cliProgress from "cli-progress";
import type { EvolutionProgress } from "../core/evolution/index.js";
import { escapeControlCharacters } from "./terminal-text.js";

/**
 * Progress display for `envforge evolve`: one bar over all target generations
 * on a terminal, plain lines otherwise. `afterAttempt` runs after every
 * attempt (the command rewrites `lineages.json` there). Lines and notices may
 * quote untrusted text, so their control characters are shown escaped.
 */
export function createEvolutionProgress(generations: number, afterAttempt: () => void, stream: NodeJS.WriteStream = process.stderr): EvolutionProgress & { stop(): void } {
  let bar: cliProgress.SingleBar | null = null;
  let total = 0;
  const line = (untrusted: string) => {
    const text = escapeControlCharacters(untrusted);
    if (bar === null) stream.write(`${text}\n`);
    else bar.update({ detail: text.slice(0, 70) });
  };
  return {
    sequencesStarted(count) {
      stream.write(`extracting scenario–skill sequences of ${count} seed(s)\n`);
    },
    sequenceExtracted(seedName, sequence) {
      stream.write(`sequence of ${seedName}: ${sequence.steps.length} step(s) from ${sequence.source}\n`);
    },
    lineageReady(lineage, stored) {
      total += generations;
      if (stream.isTTY) {
        bar ??= new cliProgress.SingleBar(
          { format: "evolve [{bar}] {value}/{total} generations {detail}", stream, hideCursor: true, clearOnComplete: false },
          cliProgress.Presets.shades_classic,
        );
        if (bar.getTotal() === 0) bar.start(total, 0, { detail: "" });
        else bar.setTotal(total);
        bar.increment(Math.min(stored, generations), { detail: lineage.seedName });
      } else {
        stream.write(`[${lineage.id}] ${lineage.seedName}: D = ${lineage.difficulty.total.toFixed(2)}, ${stored} generation(s) stored\n`);
      }
    },
    attemptFinished(attempt, generation) {
      afterAttempt();
      const detail =
        generation === null
          ? `g${attempt.generation} attempt ${attempt.attempt + 1} ${attempt.direction}/${attempt.effort}: ${attempt.outcome} (${attempt.seconds}s)`
          : `g${attempt.generation} ${attempt.direction}/${attempt.effort}: validated, D = ${generation.difficulty.total.toFixed(2)} (${attempt.seconds}s)`;
      if (generation !== null) bar?.increment(1);
      line(`[${attempt.lineageId}] ${detail}`);
    },
    lineageFinished(lineageId, status, count) {
      if (status === "stalled") bar?.increment(Math.max(0, generations - count));
      line(`[${lineageId}] ${status} with ${count} generation(s)`);
    },
    notice(message) {
      line(message);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
