import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TrainerRequestError, TrainerUnavailableError } from "../../../spec/index.js";
import { TinkerHttp } from "./tinker-http.js";

/** A scripted HTTP server: each request gets the next [status, body, delay ms] of `replies`. */
async function scriptedServer(replies: [number, unknown, number?][]): Promise<{ url: string; requests: { path: string; headers: Record<string, unknown> }[]; server: Server }> {
  const requests: { path: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests.push({ path: request.url ?? "", headers: request.headers });
      const [status, body, delay] = replies.shift() ?? [500, { error: "script exhausted" }];
      setTimeout(() => {
        if (response.destroyed) return;
        response.statusCode = status;
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(body));
      }, delay ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const noSleep = async () => {};

describe("TinkerHttp", () => {
  it("polls a future through 408 and try_again until the result arrives, sending the API key", async () => {
    const { url, requests, server } = await scriptedServer([
      [200, { request_id: "7" }],
      [408, { type: "try_again" }],
      [200, { type: "try_again", request_id: "7" }],
      [200, { metrics: { "loss:sum": -1.5 } }],
    ]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, apiKey: "k", sleep: noSleep });
    await expect(http.postFuture("/api/v1/forward_backward", {})).resolves.toEqual({ metrics: { "loss:sum": -1.5 } });
    expect(requests.map((request) => request.path)).toEqual(["/api/v1/forward_backward", ...Array(3).fill("/api/v1/retrieve_future")]);
    expect(requests[0]?.headers["x-api-key"]).toBe("k");
  });

  it("retries 503 and succeeds, but never retries a 400", async () => {
    const { url, requests, server } = await scriptedServer([
      [503, { detail: "busy" }],
      [200, { ok: true }],
      [400, { error: "token id 9 outside the vocabulary", category: "user" }],
    ]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, sleep: noSleep });
    await expect(http.post("/api/v1/x", {})).resolves.toEqual({ ok: true });
    const failure = await http.post("/api/v1/x", {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TrainerRequestError);
    expect(failure).toMatchObject({ status: 400, category: "user", retryable: false, code: "trainer_request_failed" });
    expect((failure as Error).message).toContain("outside the vocabulary");
    expect(requests).toHaveLength(3);
  });

  it("gives up after maxRetries retryable failures", async () => {
    const { url, requests, server } = await scriptedServer([[502, {}], [502, {}], [502, {}]]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, sleep: noSleep, maxRetries: 2 });
    await expect(http.get("/api/v1/healthz")).rejects.toMatchObject({ status: 502, retryable: true });
    expect(requests).toHaveLength(3);
  });

  it("reports an unreachable server as a retryable TrainerUnavailableError", async () => {
    const http = new TinkerHttp({ baseUrl: "http://127.0.0.1:1", sleep: noSleep, maxRetries: 0 });
    const failure = await http.get("/api/v1/healthz").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TrainerUnavailableError);
    expect(failure).toMatchObject({ retryable: true, code: "trainer_unavailable" });
  });

  it("rejects a success without a JSON body as a typed error", async () => {
    const { url, server } = await scriptedServer([[200, undefined]]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, sleep: noSleep });
    await expect(http.postFuture("/api/v1/optim_step", {})).rejects.toBeInstanceOf(TrainerRequestError);
  });

  it("keeps polling when a long poll outlasts the request timeout", async () => {
    const { url, requests, server } = await scriptedServer([
      [200, { request_id: "3" }],
      [200, { type: "try_again" }, 1000],
      [200, { done: true }],
    ]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, sleep: noSleep, requestTimeoutMs: 200, maxRetries: 0 });
    await expect(http.postFuture("/api/v1/optim_step", {})).resolves.toEqual({ done: true });
    expect(requests).toHaveLength(3);
  });

  it("does not resubmit an operation whose submission timed out (it may have been applied)", async () => {
    const { url, requests, server } = await scriptedServer([[200, { request_id: "1" }, 1000]]);
    servers.push(server);
    const http = new TinkerHttp({ baseUrl: url, sleep: noSleep, requestTimeoutMs: 200, maxRetries: 3 });
    await expect(http.postFuture("/api/v1/forward_backward", {})).rejects.toBeInstanceOf(TrainerUnavailableError);
    expect(requests).toHaveLength(1);
  });
});
