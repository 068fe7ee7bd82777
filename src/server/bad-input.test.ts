import { connect as connectTcp } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { descendantsOf } from "../adapters/sandbox/process-tree.js";
import { ServeRequestError } from "../spec/index.js";
import { startTestServer } from "../testing/serve-fixtures.js";
import { EnvironmentServerClient, OpenEnvSessionClient } from "./client.js";

// Every case here talks to 127.0.0.1 only, with bounded counts and times.

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

async function refusal(promise: Promise<unknown>): Promise<ServeRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServeRequestError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("environment server: bad input", () => {
  let test: TestServer;
  let client: EnvironmentServerClient;
  /** A session kept open through every case: nothing here may disturb it. */
  let bystander: OpenEnvSessionClient;

  beforeAll(async () => {
    test = await startTestServer({ settings: { capacity: 24, maxActionBytes: 1024 * 1024, headersTimeoutMs: 400, requestTimeoutMs: 1000 } });
    client = new EnvironmentServerClient({ baseUrl: test.server.url });
    bystander = await client.connect();
    await bystander.reset({ env: "echo", seed: 7 });
  });
  afterAll(async () => {
    await bystander.close();
    await test.stop();
  });

  /** The bystander session still answers, with its state intact. */
  async function bystanderUnaffected(): Promise<void> {
    const step = await bystander.step("still here");
    expect(step.observation.text).toBe("echo still here");
    const state = await bystander.state();
    expect(state.env_name).toBe("echo");
    await bystander.reset({ env: "echo", seed: 7 });
  }

  it("unknown environment: VALIDATION_ERROR / unknown_environment over WebSocket, 404 over HTTP", async () => {
    const session = await client.connect();
    const error = await refusal(session.reset({ env: "no-such-env" }));
    expect(error.problem).toBe("unknown_environment");
    const frame = await session.raw(JSON.stringify({ type: "reset", data: { env: "no-such-env" } }));
    expect(frame).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR", reason: "unknown_environment" } });
    // the session lives on and can still play
    expect((await session.reset({ env: "echo", seed: 1 })).observation.text).toBe("hello 1");
    await session.close();
    const response = await fetch(`${test.server.url}/reset`, { method: "POST", body: JSON.stringify({ env: "no-such-env" }) });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "VALIDATION_ERROR", reason: "unknown_environment" });
    expect((await refusal(client.environment("no-such-env"))).problem).toBe("unknown_environment");
    await bystanderUnaffected();
  });

  it("step before reset and step after done: SESSION_ERROR with their reasons; reset starts over", async () => {
    const session = await client.connect();
    expect((await refusal(session.step("hi"))).problem).toBe("step_before_reset");
    expect(await session.raw(JSON.stringify({ type: "step", data: { message: "hi" } }))).toMatchObject({ type: "error", data: { code: "SESSION_ERROR", reason: "step_before_reset" } });
    await session.reset({ env: "echo", seed: 2 });
    const won = await session.step("win");
    expect(won).toMatchObject({ done: true, reward: 1 });
    expect((await refusal(session.step("again"))).problem).toBe("episode_over");
    expect((await session.reset({ seed: 3 })).observation.text).toBe("hello 3"); // same environment kept
    await session.close();
    const step = await fetch(`${test.server.url}/step`, { method: "POST", body: JSON.stringify({ action: { message: "hi" } }) });
    expect(step.status).toBe(409);
    expect(await step.json()).toMatchObject({ code: "SESSION_ERROR", reason: "step_before_reset" });
    await bystanderUnaffected();
  });

  it("a method a path does not take: 405 with Allow; an unknown path: 404", async () => {
    const get = await fetch(`${test.server.url}/step`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ reason: "method_not_allowed" });
    const post = await fetch(`${test.server.url}/health`, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(`${test.server.url}/no-such-route`)).status).toBe(404);
    await bystanderUnaffected();
  });

  it("a 10 MB action: VALIDATION_ERROR / action_too_large, and the episode goes on", async () => {
    const session = await client.connect();
    await session.reset({ env: "echo", seed: 4 });
    const big = "x".repeat(10 * 1024 * 1024);
    const error = await refusal(session.step(big));
    expect(error.problem).toBe("action_too_large");
    expect((await session.step("small")).observation.text).toBe("echo small");
    await session.close();
    const response = await fetch(`${test.server.url}/v1/episodes`, { method: "POST", body: JSON.stringify({ episodes: [{ env: "echo", seed: 1, actions: [big] }] }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ reason: "action_too_large" });
    await bystanderUnaffected();
  });

  it("a frame or body over the hard limit: close 1009 / HTTP 413, nothing else disturbed", async () => {
    const small = await startTestServer({ settings: { maxFrameBytes: 64 * 1024, maxBodyBytes: 64 * 1024 }, packages: [] });
    try {
      const session = await new EnvironmentServerClient({ baseUrl: small.server.url }).connect();
      expect((await refusal(session.step("y".repeat(200 * 1024)))).problem).toBe("frame_too_large");
      const response = await fetch(`${small.server.url}/reset`, { method: "POST", body: "z".repeat(200 * 1024) });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ reason: "body_too_large" });
    } finally {
      await small.stop();
    }
    await bystanderUnaffected();
  });

  it("non-JSON, unknown-type, non-object and malformed frames: INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR; the session lives on", async () => {
    const session = await client.connect();
    expect(await session.raw("this is not json")).toMatchObject({ type: "error", data: { code: "INVALID_JSON", reason: "invalid_json" } });
    expect(await session.raw(JSON.stringify({ type: "jump" }))).toMatchObject({ type: "error", data: { code: "UNKNOWN_TYPE" } });
    for (const notAnObject of [[1, 2, 3], "reset", 7, null]) {
      expect(await session.raw(JSON.stringify(notAnObject))).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR", reason: "invalid_request", message: expect.stringMatching(/must be a JSON object with a "type"/) } });
    }
    expect(await session.raw(JSON.stringify({ type: "reset", data: { env: "echo", seed: -1 } }))).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR" } });
    // a seed past the safe-integer range breaks two zod bounds; the message names the field once
    const huge = (await session.raw(JSON.stringify({ type: "reset", data: { env: "echo", seed: 1e30 } }))) as { data: { code: string; message: string } };
    expect(huge.data.code).toBe("VALIDATION_ERROR");
    expect(huge.data.message.match(/seed:/g)).toHaveLength(1);
    expect(await session.raw(JSON.stringify({ type: "reset", extra: 1 }))).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR" } });
    await session.reset({ env: "echo", seed: 5 });
    expect(await session.raw(JSON.stringify({ type: "step", data: { text: "wrong key" } }))).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR" } });
    expect(await session.raw(JSON.stringify({ type: "step", data: { message: 12 } }))).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR" } });
    expect((await session.step("fine")).observation.text).toBe("echo fine");
    await session.close();
    const response = await fetch(`${test.server.url}/reset`, { method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "INVALID_JSON" });
    await bystanderUnaffected();
  });

  it("an environment that crashes mid-session: a done observation with the crash verdict; the next reset is clean", async () => {
    const session = await client.connect();
    await session.reset({ env: "crash", seed: 1 });
    expect((await session.step("one")).done).toBe(false);
    const crashed = await session.step("two");
    expect(crashed.done).toBe(true);
    expect(crashed.observation.metadata.failure).toMatchObject({ kind: "crash" });
    expect(crashed.observation.metadata.won).toBe(false);
    expect((await refusal(session.step("three"))).problem).toBe("episode_over");
    expect((await session.reset({ seed: 2 })).observation.text).toBe("ready");
    await session.close();
    await bystanderUnaffected();
  });

  it("an environment that hangs mid-session: a timeout verdict within the call limit; other sessions keep stepping meanwhile", async () => {
    const session = await client.connect();
    await session.reset({ env: "hang", seed: 1 });
    const started = Date.now();
    const hung = session.step("wait");
    const during = await bystander.step("during the hang");
    expect(during.observation.text).toBe("echo during the hang");
    const result = await hung;
    expect(result.done).toBe(true);
    expect(result.observation.metadata.failure).toMatchObject({ kind: "timeout" });
    expect(Date.now() - started).toBeLessThan(6000);
    await session.close();
    await bystanderUnaffected();
  });

  it("a slow-loris client is cut off at the header timeout", async () => {
    const socket = connectTcp(test.server.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
    const started = Date.now();
    socket.write("POST /reset HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const trickle = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 100);
    socket.on("error", () => undefined);
    const at = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5000))]);
    clearInterval(trickle);
    socket.destroy();
    expect(at).toBeGreaterThan(0);
    expect(at - started).toBeLessThan(3000);
    await bystanderUnaffected();
  });

  it("capacity: one session too many gets CAPACITY_REACHED, a freed slot is usable again", async () => {
    const before = test.server.stats().sessions;
    const free = 24 - before;
    const sessions = await Promise.all(Array.from({ length: free }, () => client.connect()));
    const extra = await client.connect();
    const error = await refusal(extra.reset({ env: "echo" }));
    expect(error.problem).toBe("capacity_reached");
    expect(error.retryable).toBe(true);
    await sessions[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await client.connect();
    expect((await again.reset({ env: "echo", seed: 9 })).observation.text).toBe("hello 9");
    await Promise.all([again, ...sessions.slice(1)].map((session) => session.close()));
    await bystanderUnaffected();
  });

  it("10,000 connection attempts: each is answered or refused, the server keeps serving, no process is left behind", async () => {
    const processesBefore = descendantsOf(process.pid).length;
    let opened = 0;
    let refused = 0;
    const attempt = () =>
      new Promise<void>((resolve) => {
        const socket = new WebSocket(`${test.server.url.replace("http", "ws")}/ws`);
        socket.on("message", () => socket.terminate());
        socket.on("open", () => {
          opened += 1;
          socket.close();
        });
        socket.on("unexpected-response", () => {
          refused += 1;
          socket.terminate();
          resolve();
        });
        socket.on("error", () => resolve());
        socket.on("close", () => resolve());
      });
    const started = Date.now();
    for (let batch = 0; batch < 10_000; batch += 200) await Promise.all(Array.from({ length: 200 }, attempt));
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(opened + refused).toBeGreaterThan(9_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(test.server.stats().sessions).toBe(1); // only the bystander
    expect(descendantsOf(process.pid).length).toBeLessThanOrEqual(processesBefore + 2);
    await bystanderUnaffected();
  });

  it("rate limit per client: over the burst gets rate_limited with a retry time, then recovers", async () => {
    let clock = 0;
    const limited = await startTestServer({ settings: { rateLimitPerSecond: 5, rateLimitBurst: 3 }, now: () => clock, packages: [] });
    try {
      const url = `${limited.server.url}/health`;
      const statuses = [];
      for (let index = 0; index < 4; index += 1) statuses.push((await fetch(url)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await fetch(url);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toMatchObject({ reason: "rate_limited", code: "CAPACITY_REACHED" });
      clock += 1000;
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it("bearer tokens: missing or wrong is 401 / a refused handshake; Bearer and Basic (OpenEnv URL user info) are accepted", async () => {
    const token = "a-long-enough-test-token-1234";
    const guarded = await startTestServer({ tokens: [token], packages: [] });
    try {
      expect((await fetch(`${guarded.server.url}/health`)).status).toBe(401);
      expect((await fetch(`${guarded.server.url}/health`, { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
      expect((await fetch(`${guarded.server.url}/health`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      const basic = Buffer.from(`trainer:${token}`).toString("base64");
      expect((await fetch(`${guarded.server.url}/health`, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
      expect((await refusal(new EnvironmentServerClient({ baseUrl: guarded.server.url }).connect())).problem).toBe("unauthorized");
      const session = await new EnvironmentServerClient({ baseUrl: guarded.server.url, token }).connect();
      await session.close();
    } finally {
      await guarded.stop();
    }
  });

  it("refuses to start on a non-loopback address without a token", async () => {
    await expect(startTestServer({ settings: { host: "0.0.0.0" }, packages: [] })).rejects.toThrow(/without a bearer token/);
  });

  it("WebSocket pings: a client that stops answering them is dropped, one that answers stays", async () => {
    const pinging = await startTestServer({ settings: { pingIntervalMs: 100 }, packages: [] });
    try {
      const url = `${pinging.server.url.replace("http", "ws")}/ws`;
      const open = (autoPong: boolean) =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(url, { autoPong });
          socket.once("open", () => resolve(socket));
          socket.once("error", reject);
        });
      const silent = await open(false);
      const polite = await open(true);
      const silentClosed = new Promise<void>((resolve) => silent.once("close", () => resolve()));
      await Promise.race([silentClosed, new Promise((_, reject) => setTimeout(() => reject(new Error("not dropped")), 2000))]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(polite.readyState).toBe(WebSocket.OPEN);
      expect(pinging.server.stats().websocket).toBe(1);
      polite.close();
    } finally {
      await pinging.stop();
    }
  });

  it("idle sessions expire with session_expired", async () => {
    const quick = await startTestServer({ settings: { idleTimeoutMs: 150 }, packages: [] });
    try {
      const session = await new EnvironmentServerClient({ baseUrl: quick.server.url }).connect();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await refusal(session.state())).problem).toBe("session_expired");
      expect(quick.server.stats().sessions).toBe(0);
    } finally {
      await quick.stop();
    }
  });
});
