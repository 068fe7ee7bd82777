// These tests exercise the documented HTTP contracts of vLLM's `/v1/completions` (token-id
// prompts, `logprobs`, `return_tokens_as_token_ids`, `prompt_logprobs`) and SGLang's `/generate`
// (`input_ids`, `return_logprob`, `meta_info.output_token_logprobs`) against local fakes
// (src/testing/fake-inference-servers.ts), through the real `openai` client; not against a real
// engine: no vLLM or SGLang runs here.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ModelRequestError, ModelUnavailableError } from "../../spec/index.js";
import { freePort } from "../../testing/free-port.js";
import { FAKE_EOS, fakeLogprob, startFakeSglang, startFakeVllm, writePeftAdapterFixture, type FakeServer, type FakeServerOptions } from "../../testing/fake-inference-servers.js";
import type { TinkerHttp } from "../trainer/index.js";
import { EnginePolicy } from "./engine-policy.js";
import { ServerLoraSync } from "./server-lora-sync.js";
import { openServerSamplingEngine } from "./server-sampling-engine.js";

const PROMPT = [1, 5, 9, 12];
const SAMPLE = { maxTokens: 4, temperature: 1, seed: 3 } as const;
const KINDS = [
  { kind: "vllm", start: startFakeVllm },
  { kind: "sglang", start: startFakeSglang },
] as const;

describe.each(KINDS)("$kind sampling engine (documented HTTP contract, fake server)", ({ kind, start }) => {
  const root = mkdtempSync(join(tmpdir(), `envforge-${kind}-engine-`));
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A fake server with adapter `name` loaded through its load route. */
  const serverWith = async (options: FakeServerOptions = {}, name = "envforge-t-policy-0") => {
    server = await start(options);
    const folder = join(root, name);
    writePeftAdapterFixture(folder);
    const route = kind === "vllm" ? "/v1/load_lora_adapter" : "/load_lora_adapter";
    const answer = await fetch(`${server.url}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ lora_name: name, lora_path: folder }) });
    expect(answer.status).toBe(200);
    return server;
  };

  it("continues the exact prompt token ids on the loaded adapter and returns aligned per-token logprobs", async () => {
    const fake = await serverWith();
    const engine = openServerSamplingEngine(kind, { url: fake.url, adapter: () => "envforge-t-policy-0", maxRetries: 0 });
    const sample = await engine.sampleTokens(PROMPT, SAMPLE);
    expect(sample.tokens).toHaveLength(4);
    expect(sample.logprobs).toHaveLength(4);
    expect(sample.finishReason).toBe("length");
    const request = fake.requests[0] as Record<string, unknown>;
    if (kind === "vllm") {
      expect(request).toMatchObject({ model: "envforge-t-policy-0", prompt: PROMPT, max_tokens: 4, temperature: 1, seed: 3, logprobs: 1, return_tokens_as_token_ids: true, top_p: 1, top_k: -1 });
    } else {
      expect(request).toMatchObject({ input_ids: PROMPT, lora_path: "envforge-t-policy-0", return_logprob: true, sampling_params: { max_new_tokens: 4, temperature: 1, sampling_seed: 3, top_p: 1, top_k: -1 } });
    }
    // the logprobs are the server's for those very tokens (the fake's function of token and adapter)
    const again = await engine.sampleTokens(PROMPT, SAMPLE);
    expect(again).toEqual(sample);
    const longer = await engine.sampleTokens(PROMPT, { ...SAMPLE, maxTokens: 12 });
    expect(longer.finishReason).toBe("stop");
    expect(longer.tokens.at(-1)).toBe(FAKE_EOS);
    expect(longer.tokens.slice(0, 4)).toEqual(sample.tokens);
  });

  it("passes a grammar as the server's structured-output field", async () => {
    const fake = await serverWith();
    const engine = openServerSamplingEngine(kind, { url: fake.url, adapter: () => "envforge-t-policy-0", maxRetries: 0 });
    await engine.sampleTokens(PROMPT, { ...SAMPLE, grammar: 'root ::= "a"' });
    const request = fake.requests[0] as { structured_outputs?: unknown; sampling_params?: { ebnf?: unknown } };
    if (kind === "vllm") expect(request.structured_outputs).toEqual({ grammar: 'root ::= "a"' });
    else expect(request.sampling_params?.ebnf).toBe('root ::= "a"');
  });

  it("scores a sequence under the loaded adapter: one logprob per token after the first", async () => {
    const fake = await serverWith();
    const engine = openServerSamplingEngine(kind, { url: fake.url, adapter: () => "envforge-t-policy-0", maxRetries: 0 });
    const values = await engine.tokenLogprobs(PROMPT);
    expect(values).toHaveLength(PROMPT.length - 1);
    const salt = (name: string) => [...name].reduce((value, char) => (value * 31 + char.charCodeAt(0)) % 997, 0);
    expect(values).toEqual(PROMPT.slice(1).map((token) => fakeLogprob(token, salt("envforge-t-policy-0"))));
  });

  it("a server that returns no logprobs is a ModelRequestError naming the missing field", async () => {
    const fake = await serverWith({ withoutLogprobs: true });
    const engine = openServerSamplingEngine(kind, { url: fake.url, adapter: () => "envforge-t-policy-0", maxRetries: 0 });
    const failure = engine.sampleTokens(PROMPT, SAMPLE);
    await expect(failure).rejects.toBeInstanceOf(ModelRequestError);
    await expect(engine.sampleTokens(PROMPT, SAMPLE)).rejects.toThrowError(kind === "vllm" ? /no per-token logprobs/ : /no meta_info\.output_token_logprobs/);
    await expect(engine.tokenLogprobs(PROMPT)).rejects.toBeInstanceOf(ModelRequestError);
  });

  it("never samples the bare base model: no adapter loaded, or one the server does not know, is an error", async () => {
    const fake = await serverWith();
    const none = openServerSamplingEngine(kind, { url: fake.url, adapter: () => null, maxRetries: 0 });
    await expect(none.sampleTokens(PROMPT, SAMPLE)).rejects.toThrowError(/no LoRA adapter is loaded/);
    expect(fake.requests).toEqual([]);
    const unknown = openServerSamplingEngine(kind, { url: fake.url, adapter: () => "envforge-t-policy-9", maxRetries: 0 });
    const failure = unknown.sampleTokens(PROMPT, SAMPLE);
    await expect(failure).rejects.toBeInstanceOf(ModelRequestError);
    await expect(unknown.sampleTokens(PROMPT, SAMPLE)).rejects.toMatchObject({ retryable: false });
  });

  it("refuses an empty prompt and reports an unreachable server as retryable", async () => {
    const engine = openServerSamplingEngine(kind, { url: `http://127.0.0.1:${await freePort()}`, adapter: () => "a", maxRetries: 0, requestTimeoutMs: 5_000 });
    await expect(engine.sampleTokens([], SAMPLE)).rejects.toThrowError(/empty prompt/);
    await expect(engine.sampleTokens(PROMPT, SAMPLE)).rejects.toBeInstanceOf(ModelUnavailableError);
    expect(await engine.sampleTokens(PROMPT, { ...SAMPLE, maxTokens: 0 })).toEqual({ tokens: [], logprobs: [], finishReason: "length" });
  });

  it("the engine policy syncs the trainer's adapter into the server and samples on it, recording version and engine", async () => {
    const fake = await serverWith();
    const directory = mkdtempSync(join(root, "adapters-"));
    const http = {
      post: async (_route: string, body: { path: string }) => {
        writePeftAdapterFixture(body.path);
        return { path: body.path, rank: 4, alpha: 32, target_modules: ["q_proj"] };
      },
    } as unknown as TinkerHttp;
    let version = 0;
    const sync = new ServerLoraSync({ kind, url: fake.url, http, modelId: "m", directory, instance: "r" });
    const engine = openServerSamplingEngine(kind, { url: fake.url, adapter: () => sync.adapter, maxRetries: 0 });
    const tokenizer = { encodeChat: async () => PROMPT, encodeText: async () => [5], decode: async (tokens: readonly number[]) => tokens.join(",") };
    const policy = new EnginePolicy({ engine, tokenizer, sync, policyVersion: () => version, id: "test", engineName: kind });
    const first = await policy.generate([{ role: "user", content: "hi" }], SAMPLE);
    expect(first).toMatchObject({ policyVersion: 0, engine: kind, promptTokens: PROMPT, finishReason: "length" });
    expect(first.logprobs).toHaveLength(first.tokens?.length ?? -1);
    expect(first.text).toBe(first.tokens?.join(","));
    version = 1;
    const second = await policy.generate([{ role: "user", content: "hi" }], SAMPLE);
    expect(second.policyVersion).toBe(1);
    const names = fake.requests.map((request) => (kind === "vllm" ? request.model : request.lora_path));
    expect(names).toEqual(["envforge-r-policy-0", "envforge-r-policy-1"]);
    // another adapter, another sample: the server's answer depends on the adapter named
    expect(second.tokens).not.toEqual(first.tokens);
    await sync.close();
  });
});
