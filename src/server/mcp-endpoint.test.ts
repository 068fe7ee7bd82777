import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loadPackageFolder } from "../adapters/package-files/index.js";
import { startTestServer, testEnvironments } from "../testing/serve-fixtures.js";

// Plays `envforge serve`'s /mcp with the official MCP TypeScript SDK's own client over its
// streamable HTTP transport (real sandbox, real environment programs, 127.0.0.1 only).

const LEVEL_SUM = fileURLToPath(new URL("../../fixtures/levelled-envs/level-sum", import.meta.url));
const BANK_LEDGER = fileURLToPath(new URL("../../envs/tool-seeds/bank-ledger", import.meta.url));
const TOKEN = "mcp-endpoint-test-token-0123456";

async function connect(url: string, token = TOKEN): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "envforge-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("MCP endpoint with the MCP SDK's client", () => {
  let test: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    test = await startTestServer({ tokens: [TOKEN], packages: [...testEnvironments(), loadPackageFolder(LEVEL_SUM), loadPackageFolder(BANK_LEDGER)] });
  });
  afterAll(() => test.stop());

  it("lists a tool environment's own tools with their schemas, and plays them as steps of its episode; bad arguments are tool errors", async () => {
    const { client, transport } = await connect(test.server.url);
    const { tools } = await client.listTools();
    const transfer = tools.find((tool) => tool.name === "transfer");
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["list_accounts", "get_balance", "transfer"]));
    expect(transfer?.inputSchema).toMatchObject({ type: "object", required: ["from_account", "to_account", "amount"], properties: { amount: { type: "integer" } } });
    const early = await call(client, "list_accounts");
    expect(early).toMatchObject({ isError: true, structuredContent: { reason: "invalid_request", message: expect.stringMatching(/reset \{"env": "bank-ledger"\} first/) } });
    await call(client, "reset", { env: "bank-ledger", seed: 5, level: 0 });
    const listed = await call(client, "list_accounts");
    expect(listed.content).toEqual([{ type: "text", text: expect.stringMatching(/^Accounts: \w+, \w+$/) }]);
    const names = (listed.content as { text: string }[])[0]?.text.replace("Accounts: ", "").split(", ") ?? [];
    const balance = await call(client, "get_balance", { account: names[0] });
    expect(balance.structuredContent).toMatchObject({ reward: 0, done: false, observation: { text: expect.stringMatching(/holds \d+ credits/), metadata: { step: 2 } } });
    const refused = await call(client, "transfer", { from_account: names[0], to_account: names[1], amount: "ten" });
    expect(refused.isError).toBe(true);
    const final = await call(client, "step", { message: "Balance: 0" });
    expect(final.structuredContent).toMatchObject({ reward: 0, done: true, observation: { text: expect.stringMatching(/^Not done/) } });
    await transport.terminateSession();
    await client.close();
  });

  it("refuses bad requests with typed answers: no token, GET, an unknown session, DELETE without a session, a body that is not JSON", async () => {
    const post = (headers: Record<string, string>, body: string) => fetch(`${test.server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    expect((await post({}, initialize)).status).toBe(401);
    const get = await fetch(`${test.server.url}/mcp`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    const unknown = await post({ authorization: `Bearer ${TOKEN}`, "mcp-session-id": "no-such-session" }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ reason: "not_found", detail: expect.stringMatching(/no MCP session no-such-session/) });
    const deleteWithout = await fetch(`${test.server.url}/mcp`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(deleteWithout.status).toBe(422);
    const notJson = await post({ authorization: `Bearer ${TOKEN}` }, "{not json");
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ reason: "invalid_json" });
    const notJsonRpc = await post({ authorization: `Bearer ${TOKEN}` }, JSON.stringify({ hello: "world" }));
    expect(notJsonRpc.status).toBe(200); // OpenEnv's contract: a JSON-RPC payload, here an error, for any JSON body
    expect(await notJsonRpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    expect(test.server.stats().mcp).toBe(0);
  });

  it("refuses a WebSocket that names an MCP session the server does not hold (404), and one that names an SDK session (only OpenEnv's sessions are joined)", async () => {
    const status = (url: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } });
        socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        socket.on("open", () => {
          socket.close();
          resolve(101);
        });
        socket.on("error", () => undefined);
      });
    const ws = test.server.url.replace("http", "ws");
    expect(await status(`${ws}/ws?session_id=no-such-session`)).toBe(404);
    const { client, transport } = await connect(test.server.url);
    expect(await status(`${ws}/ws?session_id=${transport.sessionId}`)).toBe(404);
    expect(await status(`${ws}/ws`)).toBe(101);
    await transport.terminateSession();
    await client.close();
  });

  it("lists reset, step, state and list_environments with their input schemas", async () => {
    const { client, transport } = await connect(test.server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["get_balance", "list_accounts", "list_environments", "reset", "state", "step", "transfer"]);
    const reset = tools.find((tool) => tool.name === "reset");
    expect(Object.keys(reset?.inputSchema.properties ?? {}).sort()).toEqual(["env", "level", "seed"]);
    const step = tools.find((tool) => tool.name === "step");
    expect(step?.inputSchema.required).toEqual(["message"]);
    const listed = await call(client, "list_environments");
    const environments = (listed.structuredContent as { environments: { name: string; levels: { count: number } }[] }).environments;
    expect(environments.find((environment) => environment.name === "level-sum")?.levels.count).toBe(4);
    expect(environments.find((environment) => environment.name === "echo")?.levels.count).toBe(1);
    await transport.terminateSession();
    await client.close();
  });

  it("plays whole episodes: reset at a seed and a level, steps with rewards, state, and refusals as tool errors the agent can recover from", async () => {
    const { client, transport } = await connect(test.server.url);
    expect(test.server.stats().mcp).toBe(1);
    const before = await call(client, "step", { message: "too early" });
    expect(before.isError).toBe(true);
    expect(before.structuredContent).toMatchObject({ reason: "step_before_reset" });

    const reset = await call(client, "reset", { env: "echo", seed: 9 });
    expect(reset.isError).toBeFalsy();
    expect(reset.content).toEqual([{ type: "text", text: "hello 9" }]);
    expect(reset.structuredContent).toMatchObject({ reward: 0, done: false, observation: { text: "hello 9", metadata: { env_name: "echo", seed: 9, step: 0 } } });
    const echo = await call(client, "step", { message: "hi" });
    expect(echo.structuredContent).toMatchObject({ reward: 0, done: false, observation: { text: "echo hi", metadata: { step: 1, info: { turn: 1 } } } });
    const win = await call(client, "step", { message: "win" });
    expect(win.structuredContent).toMatchObject({ reward: 1, done: true, observation: { text: "you win", metadata: { terminated: true, won: true, return: 1 } } });
    const state = await call(client, "state");
    expect(state.structuredContent).toMatchObject({ env_name: "echo", seed: 9, step_count: 2, done: true, total_reward: 1 });
    const over = await call(client, "step", { message: "again" });
    expect(over).toMatchObject({ isError: true, structuredContent: { reason: "episode_over", code: "SESSION_ERROR" } });

    const outOfRange = await call(client, "reset", { env: "level-sum", seed: 1, level: 99 });
    expect(outOfRange).toMatchObject({ isError: true, structuredContent: { reason: "invalid_request", message: expect.stringMatching(/level 99 is outside level-sum's levels: 0\.\.3/) } });
    const unknown = await call(client, "reset", { env: "no-such-environment" });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { reason: "unknown_environment" } });
    const wrongType = await call(client, "step", { message: 42 });
    expect(wrongType.isError).toBe(true);
    expect(JSON.stringify(wrongType.content)).toMatch(/message/);

    const levelled = await call(client, "reset", { env: "level-sum", seed: 5, level: 2 });
    const text = (levelled.structuredContent as { observation: { text: string; metadata: { level: number } } }).observation;
    expect(text.metadata.level).toBe(2);
    const terms = text.text.match(/Add these numbers: ([\d +]+)\./)?.[1]?.split(" + ").map(Number) ?? [];
    expect(terms).toHaveLength(4);
    const answered = await call(client, "step", { message: String(terms.reduce((sum, term) => sum + term, 0)) });
    expect(answered.structuredContent).toMatchObject({ reward: 1, done: true, observation: { metadata: { won: true, level: 2 } } });

    await transport.terminateSession();
    await client.close();
    expect(test.server.stats().mcp).toBe(0);
  });

  it("gives every MCP session its own episode", async () => {
    const first = await connect(test.server.url);
    const second = await connect(test.server.url);
    await call(first.client, "reset", { env: "echo", seed: 1 });
    await call(second.client, "reset", { env: "echo", seed: 2 });
    expect((await call(first.client, "step", { message: "a" })).content).toEqual([{ type: "text", text: "echo a" }]);
    expect((await call(second.client, "state")).structuredContent).toMatchObject({ seed: 2, step_count: 0 });
    for (const { client, transport } of [first, second]) {
      await transport.terminateSession();
      await client.close();
    }
  });
});

describe("MCP endpoint limits", () => {
  let test: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    test = await startTestServer({ tokens: [TOKEN], packages: testEnvironments(), settings: { capacity: 1, idleTimeoutMs: 400 } });
  });
  afterAll(() => test.stop());

  it("counts MCP sessions against the capacity, expires idle ones, and the SDK client sees its session gone", async () => {
    const first = await connect(test.server.url);
    await expect(connect(test.server.url)).rejects.toThrow(/503|capacity/);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(test.server.stats().mcp).toBe(0);
    await expect(first.client.listTools()).rejects.toThrow(/404|no MCP session/);
    const again = await connect(test.server.url);
    expect((await again.client.listTools()).tools).toHaveLength(4);
    await again.transport.terminateSession();
    await again.client.close();
    await first.client.close();
  });
});
