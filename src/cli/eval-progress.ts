import cliProgress from "cli-progress";
import type { EvalProgress } from "../core/eval/index.js";
import { escapeControlCharacters } from "./terminal-text.js";

/**
 * Progress of `envforge eval`: one bar on a terminal (items done of the plan, wins so far),
 * a line per item otherwise (logs, CI). Writes to `stream` (stderr by default).
 */
export function createEvalProgress(stream: NodeJS.WriteStream = process.stderr): EvalProgress & { stop(): void } {
  let done = 0;
  let total = 0;
  let wins = 0;
  if (!stream.isTTY) {
    return {
      started(count, already) {
        total = count;
        done = already;
        stream.write(`eval: ${count} items, ${already} already stored\n`);
      },
      itemDone(result) {
        done += 1;
        // an error says why in one short line (the store keeps the whole message)
        const outcome = result.error === null ? (result.won ? "won" : `score ${result.score.toFixed(2)}`) : `${result.error.code}: ${escapeControlCharacters(result.error.message.split("\n")[0]?.slice(0, 160) ?? "")}`;
        stream.write(`eval ${done}/${total} ${result.suite} ${escapeControlCharacters(result.task)} #${result.index}${result.level === undefined ? "" : ` level ${result.level}`}: ${outcome} (${result.seconds.toFixed(1)} s)\n`);
      },
      stop() {},
    };
  }
  let bar: cliProgress.SingleBar | null = null;
  return {
    started(count, already) {
      bar = new cliProgress.SingleBar({ format: "eval [{bar}] {value}/{total} won {wins} {detail}", stream, hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic);
      bar.start(count, already, { wins: 0, detail: already > 0 ? `(${already} stored)` : "" });
    },
    itemDone(result) {
      if (result.won) wins += 1;
      bar?.increment(1, { wins, detail: escapeControlCharacters(`${result.task} #${result.index}`).slice(0, 40) });
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
