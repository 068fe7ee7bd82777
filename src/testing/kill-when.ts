import { spawn } from "node:child_process";

/**
 * Starts `node …args` as its own process group, waits until `ready()` holds (polled every
 * `pollMs`, for at most `timeoutMs`), then kills the whole group with SIGKILL and waits for it to
 * exit: how the tests stop a run mid-round, as a crash or `kill -9` would.
 */
export async function killWhen(args: readonly string[], ready: () => boolean, options: { readonly timeoutMs?: number; readonly pollMs?: number } = {}): Promise<void> {
  const child = spawn(process.execPath, [...args], { stdio: "ignore", detached: true });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  try {
    const deadline = Date.now() + (options.timeoutMs ?? 400_000);
    while (!ready() && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
    await exited;
  }
}
