import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DASHBOARD_RUN_FIXTURE, folderState } from "../testing/dashboard-fixtures.js";

const CLI = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

/** Starts `envforge dashboard ARGS`; resolves with the printed URL (or the exit code and stderr when it stops first). */
function start(args: readonly string[], environment: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, "dashboard", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...environment } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const url = new Promise<string | null>((resolve) => {
    child.stdout.on("data", () => {
      const match = /http:\/\/[0-9.:]+/.exec(stdout);
      if (match !== null) resolve(match[0]);
    });
    void exited.then(() => resolve(null));
  });
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

describe("envforge dashboard", () => {
  it("serves the page and the runs of --out on loopback, and stops on SIGTERM with exit 0", async () => {
    const before = folderState(DASHBOARD_RUN_FIXTURE);
    const dashboard = start(["--out", DASHBOARD_RUN_FIXTURE, "--port", "0"]);
    const url = await dashboard.url;
    expect(url, dashboard.output().stderr).not.toBeNull();
    expect(dashboard.output().stdout).toContain("read-only; loopback only");
    const runs = (await (await fetch(`${url}/api/runs`)).json()) as { runs: { id: string; status: string }[] };
    expect(runs.runs).toEqual([expect.objectContaining({ id: "dashboard-run", status: "done" })]);
    expect((await fetch(`${url}/`)).status).toBe(200);
    dashboard.child.kill("SIGTERM");
    expect(await dashboard.exited).toBe(0);
    expect(folderState(DASHBOARD_RUN_FIXTURE)).toEqual(before);
  });

  it("exits 2 on a non-loopback host without a token, naming the variable", async () => {
    const dashboard = start(["--out", DASHBOARD_RUN_FIXTURE, "--host", "0.0.0.0", "--port", "0"], { ENVFORGE_DASHBOARD_TOKEN: "" });
    expect(await dashboard.exited).toBe(2);
    expect(dashboard.output().stderr).toContain("ENVFORGE_DASHBOARD_TOKEN");
  });
});
