import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelRequestError, ModelUnavailableError, type LanguageModel } from "../../spec/index.js";
import { languageModelContract } from "./language-model.contract.js";
import { openModel } from "./open-model.js";
import { OpenAICompatibleModel } from "./openai-model.js";

/**
 * A minimal OpenAI-compatible chat completions endpoint in front of the real
 * embedded model, so the HTTP provider is tested against real model output.
 * `failWith` makes every completion answer that HTTP status instead.
 */
async function startShim(backend: () => Promise<LanguageModel>, failWith?: number): Promise<{ url: string; close: () => Promise<void> }> {
  const model = failWith === undefined ? await backend() : null;
  const server: Server = createServer(async (request, response) => {
    const body = await new Promise<string>((resolve) => {
      let text = "";
      request.on("data", (chunk) => (text += chunk));
      request.on("end", () => resolve(text));
    });
    response.setHeader("content-type", "application/json");
    if (request.url?.endsWith("/models")) {
      response.end(JSON.stringify({ object: "list", data: [{ id: "shim-model", object: "model", created: 0, owned_by: "test" }] }));
      return;
    }
    if (failWith !== undefined || model === null) {
      response.statusCode = failWith ?? 500;
      response.end(JSON.stringify({ error: { message: "shim failure", type: "server_error" } }));
      return;
    }
    const parsed = JSON.parse(body) as { messages: { role: "system" | "user" | "assistant"; content: string }[]; max_tokens: number; temperature: number; seed?: number };
    const generation = await model.generate(parsed.messages, { maxTokens: parsed.max_tokens, temperature: parsed.temperature, ...(parsed.seed === undefined ? {} : { seed: parsed.seed }) });
    response.end(
      JSON.stringify({
        id: "chatcmpl-shim",
        object: "chat.completion",
        created: 0,
        model: "shim-model",
        choices: [{ index: 0, message: { role: "assistant", content: generation.text }, finish_reason: generation.finishReason === "length" ? "length" : "stop", logprobs: null }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await model?.close();
    },
  };
}

let shim: Awaited<ReturnType<typeof startShim>>;
beforeAll(async () => {
  shim = await startShim(() => openModel("embedded"));
});
afterAll(() => shim.close());

languageModelContract("OpenAI-compatible HTTP (shim over the embedded model)", () => openModel(shim.url));

describe("OpenAI-compatible provider errors", () => {
  it("reports an unreachable server as a retryable ModelUnavailableError", async () => {
    const model = await OpenAICompatibleModel.connect({ baseURL: "http://127.0.0.1:9/v1", model: "m", maxRetries: 0, timeoutMs: 2000 });
    const error = await model.generate([{ role: "user", content: "hi" }], { maxTokens: 4, temperature: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as ModelUnavailableError).retryable).toBe(true);
    await expect(openModel("http://127.0.0.1:9/v1")).rejects.toBeInstanceOf(ModelUnavailableError);
  });

  it("maps 5xx to a retryable and 4xx to a final ModelRequestError", async () => {
    for (const [status, retryable] of [[503, true], [400, false]] as const) {
      const failing = await startShim(() => openModel("embedded"), status);
      const model = await OpenAICompatibleModel.connect({ baseURL: failing.url, model: "m", maxRetries: 0 });
      const error = await model.generate([{ role: "user", content: "hi" }], { maxTokens: 4, temperature: 0 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelRequestError);
      expect((error as ModelRequestError).retryable).toBe(retryable);
      await failing.close();
    }
  });

  it("takes the model name from the URL fragment, else the first listed model", async () => {
    const named = await openModel(`${shim.url}#my-model`);
    expect(named.id).toBe(`my-model@${shim.url}`);
    const listed = await openModel(shim.url);
    expect(listed.id).toBe(`shim-model@${shim.url}`);
  });
});

describe("OpenAI-compatible provider: tools", () => {
  // A wire-level stub (hand-written answer, control flow of the adapter only): what the provider sends with tools,
  // and how a tool_calls answer becomes the reply text the episode loop parses.
  it("sends the tools and the chat's calls and results as the API defines them, and reads tool_calls back as markup", async () => {
    let sent: Record<string, unknown> | null = null;
    const server: Server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        sent = JSON.parse(body) as Record<string, unknown>;
        response.setHeader("content-type", "application/json");
        const call = { id: "call_9", type: "function", function: { name: "get_balance", arguments: '{"account":"fir"}' } };
        response.end(JSON.stringify({ id: "x", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls", logprobs: null }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const model = await OpenAICompatibleModel.connect({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: "m", maxRetries: 0 });
      const tools = [{ name: "get_balance", description: "One balance.", parameters: { type: "object", properties: { account: { type: "string" } }, required: ["account"] } }];
      const generation = await model.generate(
        [
          { role: "user", content: "What do elm and fir hold?" },
          { role: "assistant", content: '<tool_call>\n{"name": "get_balance", "arguments": {"account": "elm"}}\n</tool_call>' },
          { role: "tool", content: "'elm' holds 41 credits." },
        ],
        { maxTokens: 32, temperature: 0, tools },
      );
      expect(generation.text).toBe('<tool_call>\n{"name":"get_balance","arguments":{"account":"fir"}}\n</tool_call>');
      expect(generation.finishReason).toBe("stop");
      expect(sent).toMatchObject({
        tools: [{ type: "function", function: tools[0] }],
        messages: [
          { role: "user", content: "What do elm and fir hold?" },
          { role: "assistant", content: null, tool_calls: [{ id: "call_1_0", type: "function", function: { name: "get_balance", arguments: '{"account":"elm"}' } }] },
          { role: "tool", tool_call_id: "call_1_0", content: "'elm' holds 41 credits." },
        ],
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
