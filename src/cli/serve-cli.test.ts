import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// `envforge serve` as a user starts it (the built CLI), on 127.0.0.1 only.

const CLI = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

function start(args: readonly string[], environment: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...environment } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start line: ${stdout}${stderr}`)), 30_000);
    child.stdout.on("data", () => {
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`exited: ${stdout}${stderr}`)));
  });
  url.catch(() => undefined); // a test that expects an exit never awaits the URL
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

describe("envforge serve (CLI)", () => {
  it("serves the seeds on a free port, answers OpenEnv's /health and /v1/envs, and drains on SIGTERM with exit 0", async () => {
    const server = start(["--port", "0", "--capacity", "8"], { ENVFORGE_SERVE_TOKEN: "" });
    const url = await server.url;
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: "healthy" });
    const listing = await (await fetch(`${url}/v1/envs`)).json();
    expect(listing.total).toBe(10);
    const reset = await (await fetch(`${url}/reset`, { method: "POST", body: JSON.stringify({ env: "knapsack", seed: 1, level: 2 }) })).json();
    expect(reset.observation.text.length).toBeGreaterThan(0);
    const step = await (await fetch(`${url}/step`, { method: "POST", body: JSON.stringify({ action: { message: "[]" }, episode_id: reset.observation.metadata.episode_id }) })).json();
    expect(step.done).toBe(true); // one answer from level 2 on: nothing runs any more, so the drain is immediate
    const stopping = Date.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(server.output().stdout).toMatch(/SIGTERM: draining .*\n.*stopped/);
  });

  it("refuses a non-loopback host without a token (exit 2, naming the variable)", async () => {
    const server = start(["--host", "0.0.0.0", "--port", "0"], { ENVFORGE_SERVE_TOKEN: "" });
    expect(await server.exited).toBe(2);
    expect(server.output().stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without a bearer token: set ENVFORGE_SERVE_TOKEN/);
  });

  it("refuses --store together with --envs (exit 2)", async () => {
    const server = start(["--store", "runs/x", "--envs", "envs/seeds"]);
    expect(await server.exited).toBe(2);
    expect(server.output().stderr).toMatch(/either --store or --envs/);
  });
});
