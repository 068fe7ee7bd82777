import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI (`bin/envforge.js`, over `dist/`; `npm test` builds it first). */
export const CLI_PATH = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

/** An `envforge serve` child process. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** The server root from its start line; rejects when it exits first or prints none within 30 s. */
  readonly url: Promise<string>;
  /** Its exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** What it printed so far. */
  output(): { stdout: string; stderr: string };
}

/**
 * Starts `envforge serve ARGS` as a user would (the built CLI), on loopback.
 * @param environment variables added to this process's environment
 */
export function startServeProcess(args: readonly string[], environment: NodeJS.ProcessEnv = {}): ServeProcess {
  const child = spawn(process.execPath, [CLI_PATH, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...environment } });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start line: ${stdout}${stderr}`)), 30_000);
    child.stdout?.on("data", () => {
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`exited: ${stdout}${stderr}`)));
  });
  url.catch(() => undefined); // a caller that expects an exit never awaits the URL
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}
