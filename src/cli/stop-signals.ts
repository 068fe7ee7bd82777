/** Exit status of a process stopped by a signal: 128 + its number. */
const EXIT_STATUS = { SIGINT: 130, SIGTERM: 143 } as const;

/** Most milliseconds the clean-up of a stop signal may take before the process exits anyway. */
const CLEANUP_MS = 10_000;

/**
 * Runs `cleanup` when SIGINT (Ctrl-C) or SIGTERM (`kill`, `timeout`, a job scheduler) arrives,
 * then exits with 130 or 143: what a command does to leave nothing behind (the reference
 * trainer it started runs detached and would outlive it). A second signal while the clean-up
 * runs, or a clean-up over 10 s, exits at once. Returns a function that removes the handlers
 * (call it once the command has stopped what it started itself).
 */
export function onStopSignals(cleanup: (signal: keyof typeof EXIT_STATUS) => Promise<void> | void): () => void {
  let stopping = false;
  const handler = (signal: keyof typeof EXIT_STATUS) => {
    if (stopping) process.exit(EXIT_STATUS[signal]);
    stopping = true;
    const timer = setTimeout(() => process.exit(EXIT_STATUS[signal]), CLEANUP_MS);
    Promise.resolve()
      .then(() => cleanup(signal))
      .catch((error: unknown) => process.stderr.write(`envforge: clean-up after ${signal} failed: ${(error as Error).message}\n`))
      .finally(() => {
        clearTimeout(timer);
        process.exit(EXIT_STATUS[signal]);
      });
  };
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.removeListener("SIGINT", onInt);
    process.removeListener("SIGTERM", onTerm);
  };
}
