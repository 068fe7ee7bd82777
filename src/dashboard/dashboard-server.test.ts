import { spawn } from "node:child_process";
import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../adapters/store/index.js";
import { ConfigError } from "../spec/index.js";
import { copyRunFixture, folderState, writeCorruptStore } from "../testing/dashboard-fixtures.js";
import { startDashboardServer, type DashboardServer } from "./dashboard-server.js";
import { DEFAULT_ASSETS_DIR } from "./static-assets.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-dashboard-server-"));
const good = copyRunFixture(join(scratch, "runs", "run-good"));
writeCorruptStore(join(scratch, "runs", "run-corrupt"));
/** The built store adapter, for a writer in another process (`npm test` builds before it runs vitest). */
const BUILT_STORE = fileURLToPath(new URL("../../dist/adapters/store/index.js", import.meta.url));
let server: DashboardServer;
let tokenServer: DashboardServer;
const TOKEN = "a-dashboard-token-0123456789";

/** A GET (or other method) with exact headers, Host included, through node:http. */
function call(base: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, base);
    const outgoing = request({ host: target.hostname, port: target.port, path: target.pathname, method: options.method ?? "GET", headers: options.headers ?? {} }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

beforeAll(async () => {
  server = await startDashboardServer({ folders: [join(scratch, "runs"), join(scratch, "not-there")], pollIntervalMs: 100, log: () => undefined });
  tokenServer = await startDashboardServer({ folders: [join(scratch, "runs")], tokens: [TOKEN], log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await tokenServer.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("dashboard server", () => {
  it("lists every folder, with what is wrong for the broken ones, and answers each run's problem with its status", async () => {
    const before = folderState(join(scratch, "runs"));
    const runs = JSON.parse((await call(server.url, "/api/runs")).body).runs as { id: string; status: string; problem: { kind: string; message: string } | null }[];
    expect(runs.map((run) => [run.id, run.status, run.problem?.kind ?? null])).toEqual([
      ["run-corrupt", "problem", "corrupt"],
      ["run-good", "done", null],
      ["not-there", "problem", "missing"],
    ]);
    const corrupt = await call(server.url, "/api/runs/run-corrupt");
    expect(corrupt.status).toBe(422);
    expect(JSON.parse(corrupt.body)).toMatchObject({ reason: "store_corrupt", detail: expect.stringContaining("not an SQLite database") });
    expect((await call(server.url, "/api/runs/not-there")).status).toBe(404);
    expect((await call(server.url, "/api/runs/nobody")).status).toBe(404);
    const detail = await call(server.url, "/api/runs/run-good");
    expect(detail.status).toBe(200);
    expect(JSON.parse(detail.body).rounds).toHaveLength(2);
    expect(folderState(join(scratch, "runs"))).toEqual(before);
  });

  it("is read-only and answers only loopback clients without a token", async () => {
    const post = await call(server.url, "/api/runs", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
    expect((await call(server.url, "/api/runs", { headers: { host: "attacker.example:80" } })).status).toBe(401);
    expect((await call(server.url, "/api/runs", { headers: { origin: "http://attacker.example" } })).status).toBe(401);
    expect((await call(server.url, "/api/runs", { headers: { origin: server.url } })).status).toBe(200);
  });

  it("refuses a non-loopback bind without a token, and with one requires it on every API route", async () => {
    await expect(startDashboardServer({ folders: [scratch], host: "0.0.0.0" })).rejects.toBeInstanceOf(ConfigError);
    expect((await call(tokenServer.url, "/api/runs")).status).toBe(401);
    expect((await call(tokenServer.url, "/api/runs", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    expect((await call(tokenServer.url, "/api/runs", { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await call(tokenServer.url, "/api/events", { headers: {} })).status).toBe(401);
  });

  it("serves the bundled page with a strict Content-Security-Policy and nothing outside it", async () => {
    const page = await call(server.url, "/");
    expect(page.status, `the page is built into ${DEFAULT_ASSETS_DIR} by npm run build`).toBe(200);
    expect(page.body).toContain("envforge dashboard");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/https?:\/\//);
    expect((await call(server.url, "/..%2Fpackage.json")).status).toBe(404);
    expect((await call(server.url, "/assets/../../package.json")).status).toBe(404);
  });

  it("answers consistently while another process writes rounds into the store", async () => {
    const folder = copyRunFixture(join(scratch, "runs", "run-busy"));
    // a separate process: through the store's API, 40 rounds begun and finished as fast as it can, a new connection each
    const script = `
      const { SqliteStore } = await import(${JSON.stringify(BUILT_STORE)});
      const path = ${JSON.stringify(join(folder, "envforge.db"))};
      const report = new SqliteStore(path).listRounds()[1].report;
      for (let round = 3; round < 43; round += 1) {
        const store = new SqliteStore(path);
        store.beginRound(round);
        store.finishRound(round, { ...report, round });
        store.close();
      }`;
    const writer = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    writer.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => writer.on("exit", resolve));
    let running = true;
    void exited.then(() => (running = false));
    const seen: number[] = [];
    while (running || seen.length < 3) {
      const answer = await call(server.url, "/api/runs/run-busy");
      expect(answer.status, answer.body).toBe(200);
      const rounds = JSON.parse(answer.body).rounds as { round: number; status: string; report: unknown }[];
      // every round the page sees is whole: finished rounds carry their report
      for (const round of rounds) if (round.status === "done") expect(round.report).not.toBeNull();
      seen.push(rounds.length);
    }
    expect(await exited, stderr).toBe(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(42);
  });

  it("sends a change event when a run writes to its store", async () => {
    const received: string[] = [];
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/events`, { signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const changed = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received.push(value);
        if (received.join("").includes("event: change")) return;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const store = new SqliteStore(join(good, "envforge.db"));
    store.beginRound(3);
    store.close();
    await changed;
    controller.abort();
    expect(received.join("")).toContain('event: change\ndata: {"runs":["run-good"]}');
  });
});
