import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_WORKER_PATH } from "../adapters/sandbox/index.js";
import { ECHO_ENV, startTestServer } from "../testing/serve-fixtures.js";
import { WebSocketExchange, WebSocketExchangeError } from "../support/websocket-exchange.js";
import { EnvironmentServerClient } from "./client.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const TOKEN = "sandbox-worker-test-token-0123456789";
const ORACLE = "def act(env, observation):\n    return 'win'\n";

async function connect(server: TestServer, token: string | null = TOKEN): Promise<WebSocketExchange> {
  return WebSocketExchange.connect(`${server.server.url.replace(/^http/, "ws")}${SANDBOX_WORKER_PATH}`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
}

async function send(connection: WebSocketExchange, frame: unknown): Promise<{ type: string; data: unknown }> {
  return connection.exchange(typeof frame === "string" ? frame : JSON.stringify(frame), 20_000);
}

describe("envforge serve: the sandbox-worker route /v1/sandbox (programs sent inline)", () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ tokens: [TOKEN], settings: { maxFrameBytes: 4 * 1024 * 1024 } });
  });
  afterAll(() => test.stop());

  it("opens an inline program and passes the sandbox's outcomes on unchanged: reset, step, run_actions, oracle_action, close", async () => {
    const connection = await connect(test);
    expect(await send(connection, { type: "open", data: { envSource: ECHO_ENV, oracleSource: ORACLE, rewardRange: [0, 1] } })).toEqual({ type: "outcome", data: { kind: "ok", value: null } });
    expect(await send(connection, { type: "reset", data: { seed: 4 } })).toEqual({ type: "outcome", data: { kind: "ok", value: "hello 4" } });
    expect(await send(connection, { type: "step", data: { action: "a" } })).toEqual({
      type: "outcome",
      data: { kind: "ok", value: { observation: "echo a", reward: 0, terminated: false, truncated: false, info: { turn: 1 } } },
    });
    expect(await send(connection, { type: "oracle_action", data: { observation: "echo a" } })).toEqual({ type: "outcome", data: { kind: "ok", value: "win" } });
    const run = await send(connection, { type: "run_actions", data: { seed: 2, actions: ["x", "win", "never"] } });
    expect(run.data).toMatchObject({ kind: "ok", value: { initialObservation: "hello 2", steps: [{ observation: "echo x" }, { observation: "you win", terminated: true }] } });
    await expect(new EnvironmentServerClient({ baseUrl: test.server.url, token: TOKEN }).stats()).resolves.toMatchObject({ sandbox: 1 });
    await connection.close({ frame: JSON.stringify({ type: "close" }), peerCloseMs: 5000 });
    expect(test.server.stats().sandbox).toBe(0);
  });

  it("answers a program that fails to load with the sandbox's crash outcome, traceback in detail", async () => {
    const connection = await connect(test);
    const answer = await send(connection, { type: "open", data: { envSource: "class Broken(:\n", oracleSource: null } });
    expect(answer.type).toBe("outcome");
    expect(answer.data).toMatchObject({ kind: "crash" });
    expect(JSON.stringify(answer.data)).toContain("SyntaxError");
    await connection.close();
  });

  it("refuses a malformed package with VALIDATION_ERROR, and the session goes on", async () => {
    const connection = await connect(test);
    const malformed = [
      { type: "open", data: { envSource: 42, oracleSource: null } },
      { type: "open", data: { envSource: ECHO_ENV } },
      { type: "open", data: { envSource: ECHO_ENV, oracleSource: null, extra: true } },
      { type: "open", data: { envSource: ECHO_ENV, oracleSource: null, rewardRange: [1, 0] } },
      { type: "open", data: { envSource: ECHO_ENV, oracleSource: null }, more: 1 },
    ];
    for (const frame of malformed) {
      const answer = await send(connection, frame);
      expect(answer, JSON.stringify(frame)).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR", reason: "invalid_request" } });
    }
    expect(await send(connection, "not json")).toMatchObject({ type: "error", data: { code: "INVALID_JSON" } });
    expect(await send(connection, { type: "teleport" })).toMatchObject({ type: "error", data: { code: "UNKNOWN_TYPE" } });
    expect(await send(connection, { type: "step", data: { action: "a" } })).toMatchObject({ type: "error", data: { reason: "invalid_request" } }); // before open
    expect((await send(connection, { type: "open", data: { envSource: ECHO_ENV, oracleSource: null } })).data).toEqual({ kind: "ok", value: null });
    expect(await send(connection, { type: "open", data: { envSource: ECHO_ENV, oracleSource: null } })).toMatchObject({ type: "error", data: { reason: "invalid_request" } }); // one program per session
    expect((await send(connection, { type: "reset", data: { seed: 1.5 } })).type).toBe("error");
    expect((await send(connection, { type: "reset", data: { seed: 1 } })).data).toEqual({ kind: "ok", value: "hello 1" });
    await connection.close();
  });

  it("answers a source over the sandbox's size cap with protocol_violation, and closes on a frame over the server's limit while others go on", async () => {
    const bystander = await connect(test);
    expect((await send(bystander, { type: "open", data: { envSource: ECHO_ENV, oracleSource: null } })).data).toEqual({ kind: "ok", value: null });
    const connection = await connect(test);
    const capped = await send(connection, { type: "open", data: { envSource: `# ${"x".repeat(2 * 1024 * 1024)}\n${ECHO_ENV}`, oracleSource: null } });
    expect(capped.data).toMatchObject({ kind: "protocol_violation" });
    const oversize = await connect(test);
    const failure = await send(oversize, { type: "open", data: { envSource: `# ${"x".repeat(5 * 1024 * 1024)}\n`, oracleSource: null } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WebSocketExchangeError);
    expect((failure as WebSocketExchangeError).details.closeCode).toBe(1009);
    expect((await send(bystander, { type: "reset", data: { seed: 3 } })).data).toEqual({ kind: "ok", value: "hello 3" });
    await Promise.all([bystander.close(), connection.close()]);
  });

  it("requires the token like every route, and refuses the route when serve.acceptPrograms is false", async () => {
    await expect(connect(test, null)).rejects.toMatchObject({ problem: "refused", details: { status: 401 } });
    await expect(connect(test, "wrong-token-wrong-token-wrong")).rejects.toMatchObject({ problem: "refused", details: { status: 401 } });
    const closedRoute = await startTestServer({ settings: { acceptPrograms: false } });
    try {
      const refusal = await connect(closedRoute, null).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ problem: "refused", details: { status: 422 } });
      expect((refusal as WebSocketExchangeError).body).toMatchObject({ reason: "not_supported" });
    } finally {
      await closedRoute.stop();
    }
  });

  it("holds worker sessions in the server's session slots: one over capacity is refused with CAPACITY_REACHED", async () => {
    const small = await startTestServer({ settings: { capacity: 1 } });
    try {
      const first = await connect(small, null);
      const second = await connect(small, null);
      const answer = await send(second, { type: "open", data: { envSource: ECHO_ENV, oracleSource: null } }).catch(() => second.unsolicited);
      expect(answer).toMatchObject({ type: "error", data: { code: "CAPACITY_REACHED" } });
      await Promise.all([first.close(), second.close()]);
    } finally {
      await small.stop();
    }
  });
});
