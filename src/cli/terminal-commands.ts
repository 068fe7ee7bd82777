import { resolve } from "node:path";
import { ConfigError, type TerminalTask } from "../spec/index.js";
import { readHarborTask } from "../adapters/terminal/index.js";
import { ensureRoot, imageKey } from "../adapters/terminal/index.js";
import { benchTerminal } from "../adapters/terminal/index.js";
import { OPENENV_IMAGE } from "../adapters/openenv/index.js";
import { TERMINAL_SEED_FOLDER, terminalSeeds } from "./admit-terminal.js";

function readTasks(paths: readonly string[]): TerminalTask[] {
  if (paths.length === 0) return terminalSeeds();
  return paths.map((path) => {
    const task = readHarborTask(path);
    if ("status" in task) throw new ConfigError(`${path}: ${task.message}`);
    return task;
  });
}

/**
 * `envforge sandbox roots [TASK_DIR...]`: builds (once; cached after) the Debian roots the terminal
 * tasks need (default: the terminal seeds', and the root OpenEnv packages run in) and prints each
 * image with its folder. Exit 0.
 * @throws ConfigError for a task folder that does not read (exit 2)
 * @throws SandboxUnavailableError when a root cannot be built (exit 2)
 */
export async function sandboxRootsCommand(paths: readonly string[], write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  // with no folder named: the terminal seeds' roots and the one OpenEnv packages run in
  const tasks: Pick<TerminalTask, "image">[] = [...readTasks(paths), ...(paths.length === 0 ? [{ image: OPENENV_IMAGE }] : [])];
  const images = new Map(tasks.map((task) => [imageKey(task.image, "http://deb.debian.org/debian"), task]));
  for (const task of images.values()) {
    const started = performance.now();
    let built = false;
    const root = await ensureRoot(task.image, {
      onBuild: (image) => {
        built = true;
        write(`building the ${image.suite} root${image.packages.length > 0 ? ` with ${image.packages.join(", ")}` : ""} (mmdebstrap; about a minute) ...\n`);
      },
    });
    const packages = task.image.packages.length > 0 ? task.image.packages.join(", ") : "minbase only";
    write(`${task.image.suite} [${packages}]: ${root}${built ? ` (built in ${Math.round((performance.now() - started) / 1000)} s)` : " (cached)"}\n`);
  }
  return 0;
}

/**
 * `envforge bench terminal [TASK_DIR]`: the terminal runtime's figures on one task (default the
 * seed config-file): first root build (`--build`), episode start, command round trip vs
 * `bash -c`, disk per session, sessions held at once. Exit 0.
 */
export async function benchTerminalCommand(path: string | undefined, flags: { json?: boolean; runs?: number; sessions?: number; build?: boolean }, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const [task] = readTasks([path ?? resolve(TERMINAL_SEED_FOLDER, "config-file")]) as [TerminalTask];
  const report = await benchTerminal(task, { runs: flags.runs ?? 50, sessions: flags.sessions ?? 32, build: flags.build ?? false });
  if (flags.json) {
    write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  write(
    [
      `terminal runtime on ${report.task}`,
      `  first root build (mmdebstrap, empty cache): ${report.firstBuildMs === null ? "not measured (--build)" : `${(report.firstBuildMs / 1000).toFixed(1)} s`}`,
      `  episode start on the cached root: p50 ${report.episodeStartMs.p50} ms, p90 ${report.episodeStartMs.p90} ms (${report.episodeStartMs.runs} runs)`,
      `  command round trip: ${report.commandRoundTripMs.jail} ms in the jail's shell vs ${report.commandRoundTripMs.hostBashC} ms for bash -c on the host (p50, ${report.commandRoundTripMs.runs} runs)`,
      `  disk per session: ${mib(report.diskBytes.afterSetup)} after set-up, ${mib(report.diskBytes.afterOracle)} after the oracle`,
      `  sessions held at once: ${report.sessionsHeld.held} of ${report.sessionsHeld.asked} opened in ${report.sessionsHeld.openMs} ms, about ${report.sessionsHeld.memoryMb} MiB of host memory`,
      "",
    ].join("\n"),
  );
  return 0;
}
