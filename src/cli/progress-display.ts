import cliProgress from "cli-progress";
import type { ProgressListener } from "../core/selfplay/index.js";
import { escapeControlCharacters } from "./terminal-text.js";

/**
 * Progress display for `envforge run`: a bar per phase on a terminal, plain
 * lines otherwise (logs, CI). Writes to `stream` (stderr by default). Details
 * and notices may quote untrusted text (an environment's error), so their
 * control characters are shown escaped ({@link escapeControlCharacters}).
 */
export function createProgressDisplay(stream: NodeJS.WriteStream = process.stderr): ProgressListener & { stop(): void } {
  if (!stream.isTTY) {
    let done = 0;
    let total = 0;
    return {
      phaseStarted(round, phase, count) {
        done = 0;
        total = count;
        stream.write(`[round ${round}] ${phase} phase: ${count} ${phase === "solver" ? "environments" : phase === "designer" ? "designs" : "step"}\n`);
      },
      unitDone(round, phase, detail) {
        done += 1;
        stream.write(`[round ${round}] ${phase} ${done}/${total} ${escapeControlCharacters(detail)}\n`);
      },
      unitProgress(round, phase, detail) {
        stream.write(`[round ${round}] ${phase} ${escapeControlCharacters(detail)}\n`);
      },
      notice(message) {
        stream.write(`${escapeControlCharacters(message)}\n`);
      },
      stop() {},
    };
  }
  let bar: cliProgress.SingleBar | null = null;
  const stop = () => {
    bar?.stop();
    bar = null;
  };
  return {
    phaseStarted(round, phase, count) {
      stop();
      bar = new cliProgress.SingleBar(
        { format: `round ${round} ${phase.padEnd(8)} [{bar}] {value}/{total} {detail}`, stream, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      );
      bar.start(count, 0, { detail: "" });
    },
    unitDone(_round, _phase, detail) {
      bar?.increment(1, { detail: escapeControlCharacters(detail).slice(0, 60) });
    },
    unitProgress(_round, _phase, detail) {
      bar?.update({ detail: escapeControlCharacters(detail).slice(0, 60) });
    },
    notice(message) {
      stop();
      stream.write(`${escapeControlCharacters(message)}\n`);
    },
    stop,
  };
}
