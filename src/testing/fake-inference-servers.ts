/**
 * Local fakes of vLLM's and SGLang's documented HTTP contracts for runtime LoRA loading and
 * token-level sampling, for tests. They are not engines: they read the adapter folder a load
 * names (as the servers' loaders do: `adapter_config.json`, then the safetensors header and
 * size), keep a registry of loaded names, and sample deterministic tokens with made-up logprobs.
 *
 * - vLLM (vllm/entrypoints/serve/lora/api_router.py, serving_models.py; CompletionRequest):
 *   `POST /v1/load_lora_adapter` and `/v1/unload_lora_adapter` exist only with
 *   `VLLM_ALLOW_RUNTIME_LORA_UPDATING` (else 404); a body without `lora_name`/`lora_path` is 400;
 *   an already loaded name 400; no adapter at `lora_path` 404 `NotFoundError`; an adapter the engine
 *   refuses 500 (current releases; 400 in older ones); success 200 with a plain-text line; unloading
 *   an unknown name 404. `POST /v1/completions` takes `prompt` as token ids, `model` the base or a
 *   loaded adapter (else 404 "The model `x` does not exist."), and with `logprobs` answers
 *   `choices[0].logprobs.{tokens, token_logprobs}` (tokens as `token_id:N` with
 *   `return_tokens_as_token_ids`) and with `prompt_logprobs` `choices[0].prompt_logprobs`.
 *   Errors are `{"error": {"message", "type", "param", "code"}}`.
 * - SGLang (python/sglang/srt/entrypoints/http_server.py, tokenizer_manager.py): `POST
 *   /load_lora_adapter` and `/unload_lora_adapter` answer 200 `{"success": true, ...}` or 400
 *   `{"success": false, "error_message"}` (also for a server started without `--enable-lora`);
 *   `POST /generate` takes `input_ids`, `sampling_params`, `return_logprob`, `logprob_start_len`
 *   and `lora_path` (a loaded name) and answers `meta_info.output_token_logprobs` /
 *   `input_token_logprobs` as `[logprob, token_id, null]` and `meta_info.finish_reason.type`.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";

/** One load request a fake received, with what it found at `lora_path` when it read the folder. */
export interface ReceivedLoad {
  readonly loraName: unknown;
  readonly loraPath: unknown;
  /** Whether both files were there and whole (config parsed, safetensors size matching its header). */
  readonly complete: boolean;
  /** Sizes of `adapter_config.json` and `adapter_model.safetensors` when read, bytes. */
  readonly files: Readonly<Record<string, number>>;
  /** `r` read from the config, when it parsed. */
  readonly rank: number | null;
}

/** Knobs of the fakes: the server flags and faults a test needs. */
export interface FakeServerOptions {
  /** vLLM: `VLLM_ALLOW_RUNTIME_LORA_UPDATING` set (the LoRA routes exist). @default true */
  readonly runtimeLoraUpdating?: boolean;
  /** `--enable-lora`. @default true */
  readonly enableLora?: boolean;
  /** `--max-lora-rank`. @default 16 */
  readonly maxLoraRank?: number;
  /** vLLM's status for an adapter the engine refuses: 500 in current releases, 400 in older ones. @default 500 */
  readonly refusalStatus?: 400 | 500;
  /** Maps `lora_path` to the path this server reads (a server that does not share the trainer's folder). @default identity */
  readonly readPath?: (path: string) => string;
  /** Answer completions / generations without per-token logprobs. @default false */
  readonly withoutLogprobs?: boolean;
  /** Status for every load (e.g. 501 from a server without LoRA support). @default none */
  readonly loadStatus?: number;
}

/** A running fake. */
export interface FakeServer {
  /** Root URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Names loaded now, in load order. */
  readonly loaded: string[];
  /** Every load request received. */
  readonly loads: ReceivedLoad[];
  /** Every unload request's `lora_name`. */
  readonly unloads: unknown[];
  /** Every sampling or scoring request body. */
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The base model's name on the fakes. */
export const FAKE_BASE_MODEL = "fake-base";
/** Vocabulary size of the fakes' samples (token ids 0–63, as the tiny random model's). */
export const FAKE_VOCABULARY = 64;
/** End-of-sequence token of the fakes: a sample stops after it (kept) at its sixth token. */
export const FAKE_EOS = 2;

/** Starts a fake vLLM OpenAI-compatible server on 127.0.0.1. */
export function startFakeVllm(options: FakeServerOptions = {}): Promise<FakeServer> {
  return start((state, path, body, respond) => {
    const lora = path === "/v1/load_lora_adapter" || path === "/v1/unload_lora_adapter";
    if (lora && options.runtimeLoraUpdating === false) return respond(404, { detail: "Not Found" });
    if (path === "/v1/load_lora_adapter") {
      if (options.loadStatus !== undefined) return respond(options.loadStatus, vllmError(options.loadStatus, "not implemented"));
      if (typeof body.lora_name !== "string" || typeof body.lora_path !== "string" || !body.lora_name || !body.lora_path) {
        return respond(400, vllmError(400, "Both 'lora_name' and 'lora_path' must be provided.", "InvalidUserInput"));
      }
      if (state.loaded.includes(body.lora_name)) return respond(400, vllmError(400, `The lora adapter '${body.lora_name}' has already been loaded.`, "InvalidUserInput"));
      const read = readAdapter(state, body, options);
      if (read.problem === "missing") return respond(404, vllmError(404, `Loading lora ${body.lora_name} failed: No adapter found for ${body.lora_path}`, "NotFoundError"));
      if (read.problem !== null || options.enableLora === false) {
        const status = options.refusalStatus ?? 500;
        return respond(status, vllmError(status, options.enableLora === false ? "LoRA is not enabled" : read.problem ?? "", status === 500 ? "InternalServerError" : "BadRequestError"));
      }
      state.loaded.push(body.lora_name);
      return respond(200, `Success: LoRA adapter '${body.lora_name}' added successfully.`);
    }
    if (path === "/v1/unload_lora_adapter") {
      state.unloads.push(body.lora_name);
      const index = state.loaded.indexOf(body.lora_name as string);
      if (index < 0) return respond(404, vllmError(404, `The lora adapter '${String(body.lora_name)}' cannot be found.`, "NotFoundError"));
      state.loaded.splice(index, 1);
      return respond(200, `Success: LoRA adapter '${String(body.lora_name)}' removed successfully.`);
    }
    if (path === "/v1/completions") {
      state.requests.push(body);
      const model = body.model;
      if (model !== FAKE_BASE_MODEL && !state.loaded.includes(model as string)) {
        return respond(404, { error: { message: `The model \`${String(model)}\` does not exist.`, type: "NotFoundError", param: "model", code: 404 } });
      }
      const prompt = body.prompt;
      if (!Array.isArray(prompt) || !prompt.every((token) => Number.isInteger(token))) return respond(400, vllmError(400, "prompt must be token ids here"));
      const sample = sampleFrom(prompt as number[], Number(body.max_tokens ?? 16), adapterSalt(model));
      const asIds = body.return_tokens_as_token_ids === true;
      const logprobs = body.logprobs === undefined || body.logprobs === null || options.withoutLogprobs
        ? null
        : {
            text_offset: sample.tokens.map((_, index) => index),
            token_logprobs: sample.logprobs,
            tokens: sample.tokens.map((token) => (asIds ? `token_id:${token}` : `t${token}`)),
            top_logprobs: sample.tokens.map((token, index) => ({ [asIds ? `token_id:${token}` : `t${token}`]: sample.logprobs[index] })),
          };
      const promptLogprobs = typeof body.prompt_logprobs === "number" && !options.withoutLogprobs
        ? (prompt as number[]).map((token, index) => (index === 0 ? null : { [String(token)]: { logprob: fakeLogprob(token, adapterSalt(model)), rank: 1, decoded_token: `t${token}` } }))
        : null;
      return respond(200, {
        id: `cmpl-${state.requests.length}`,
        object: "text_completion",
        created: 0,
        model,
        choices: [{ index: 0, text: sample.tokens.map((token) => `t${token}`).join(""), logprobs, finish_reason: sample.finishReason, stop_reason: null, prompt_logprobs: promptLogprobs }],
        usage: { prompt_tokens: prompt.length, completion_tokens: sample.tokens.length, total_tokens: prompt.length + sample.tokens.length },
      });
    }
    return respond(404, { detail: "Not Found" });
  });
}

/** Starts a fake SGLang server (native routes) on 127.0.0.1. */
export function startFakeSglang(options: FakeServerOptions = {}): Promise<FakeServer> {
  return start((state, path, body, respond) => {
    if (path === "/load_lora_adapter") {
      if (options.loadStatus !== undefined) return respond(options.loadStatus, { detail: "not implemented" });
      if (options.enableLora === false) return respond(400, { success: false, error_message: "LoRA is not enabled. Please set `--enable-lora` to enable LoRA." });
      const read = readAdapter(state, body, options);
      if (read.problem !== null) return respond(400, { success: false, error_message: `Failed to load LoRA adapter ${String(body.lora_name)}: ${read.problem}` });
      state.loaded.push(body.lora_name as string);
      return respond(200, { success: true, error_message: null, loaded_adapters: Object.fromEntries(state.loaded.map((name) => [name, name])) });
    }
    if (path === "/unload_lora_adapter") {
      state.unloads.push(body.lora_name);
      const index = state.loaded.indexOf(body.lora_name as string);
      if (index < 0) return respond(400, { success: false, error_message: `LoRA adapter ${String(body.lora_name)} is not loaded` });
      state.loaded.splice(index, 1);
      return respond(200, { success: true, error_message: null, loaded_adapters: Object.fromEntries(state.loaded.map((name) => [name, name])) });
    }
    if (path === "/generate") {
      state.requests.push(body);
      const adapter = body.lora_path ?? null;
      if (adapter !== null && !state.loaded.includes(adapter as string)) {
        return respond(400, { error: { message: `The following requested LoRA adapters are not loaded: ${String(adapter)}` } });
      }
      const input = body.input_ids;
      if (!Array.isArray(input) || !input.every((token) => Number.isInteger(token))) return respond(400, { error: { message: "input_ids must be token ids" } });
      const params = (body.sampling_params ?? {}) as { max_new_tokens?: number };
      const salt = adapterSalt(adapter);
      const sample = sampleFrom(input as number[], params.max_new_tokens ?? 128, salt);
      const meta: Record<string, unknown> = {
        id: `gen-${state.requests.length}`,
        finish_reason: sample.finishReason === "stop" ? { type: "stop", matched: FAKE_EOS } : { type: "length", length: sample.tokens.length },
        prompt_tokens: input.length,
        completion_tokens: sample.tokens.length,
      };
      if (body.return_logprob === true && !options.withoutLogprobs) {
        meta.output_token_logprobs = sample.tokens.map((token, index) => [sample.logprobs[index], token, null]);
        if (body.logprob_start_len === 0) meta.input_token_logprobs = (input as number[]).map((token, index) => [index === 0 ? null : fakeLogprob(token, salt), token, null]);
      }
      return respond(200, { text: sample.tokens.map((token) => `t${token}`).join(""), output_ids: sample.tokens, meta_info: meta });
    }
    return respond(404, { detail: "Not Found" });
  });
}

/** The made-up logprob the fakes report for `token` on an adapter (`salt`): a fixed function, so tests can predict it. */
export function fakeLogprob(token: number, salt: number): number {
  return -0.25 - ((token + salt) % 7) / 8;
}

interface FakeState {
  readonly loaded: string[];
  readonly loads: ReceivedLoad[];
  readonly unloads: unknown[];
  readonly requests: Record<string, unknown>[];
}

type Respond = (status: number, body: unknown) => void;

function start(handle: (state: FakeState, path: string, body: Record<string, unknown>, respond: Respond) => void): Promise<FakeServer> {
  const state: FakeState = { loaded: [], loads: [], unloads: [], requests: [] };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const respond: Respond = (status, body) => {
        const text = typeof body === "string" ? body : JSON.stringify(body);
        response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
        response.end(text);
      };
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        return respond(400, { detail: "body is not JSON" });
      }
      if (request.method !== "POST") return respond(405, { detail: "Method Not Allowed" });
      handle(state, (request.url ?? "/").split("?")[0] as string, body, respond);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, ...state, close: () => new Promise<void>((done) => server.close(() => done())) });
    }),
  );
}

/** Reads the folder a load names, as the servers' loaders do; records what it found; returns why it cannot be loaded (null when it can). */
function readAdapter(state: FakeState, body: Record<string, unknown>, options: FakeServerOptions): { problem: string | null } {
  const given = String(body.lora_path ?? "");
  const folder = (options.readPath ?? ((path: string) => path))(given);
  const files: Record<string, number> = {};
  const record = (complete: boolean, rank: number | null) => state.loads.push({ loraName: body.lora_name, loraPath: body.lora_path, complete, files, rank });
  const configPath = join(folder, "adapter_config.json");
  const weightsPath = join(folder, "adapter_model.safetensors");
  if (!existsSync(configPath)) {
    record(false, null);
    return { problem: "missing" };
  }
  files["adapter_config.json"] = statSync(configPath).size;
  let config: { r?: unknown };
  try {
    config = JSON.parse(readFileSync(configPath, "utf8")) as { r?: unknown };
  } catch (error) {
    record(false, null);
    return { problem: `JSONDecodeError: ${(error as Error).message}` };
  }
  const rank = typeof config.r === "number" ? config.r : null;
  if (!existsSync(weightsPath)) {
    record(false, rank);
    return { problem: `${folder} doesn't contain tensors` };
  }
  const weights = readFileSync(weightsPath);
  files["adapter_model.safetensors"] = weights.length;
  const headerLength = weights.length >= 8 ? Number(weights.readBigUInt64LE(0)) : Number.POSITIVE_INFINITY;
  let whole = false;
  if (8 + headerLength <= weights.length) {
    try {
      const header = JSON.parse(weights.subarray(8, 8 + headerLength).toString("utf8")) as Record<string, { data_offsets?: number[] }>;
      const end = Math.max(0, ...Object.entries(header).filter(([name]) => name !== "__metadata__").map(([, entry]) => entry.data_offsets?.[1] ?? 0));
      whole = 8 + headerLength + end === weights.length;
    } catch {
      whole = false;
    }
  }
  record(whole, rank);
  if (!whole) return { problem: "Error while deserializing header: incomplete safetensors file" };
  if (rank !== null && rank > (options.maxLoraRank ?? 16)) return { problem: `LoRA rank ${rank} is greater than max_lora_rank ${options.maxLoraRank ?? 16}.` };
  return { problem: null };
}

function vllmError(code: number, message: string, type = "BadRequestError"): unknown {
  return { error: { message, type, param: null, code } };
}

/** A different salt per adapter name, so that samples show which adapter served them. */
function adapterSalt(name: unknown): number {
  if (typeof name !== "string") return 0;
  let salt = 0;
  for (const char of name) salt = (salt * 31 + char.charCodeAt(0)) % 997;
  return salt;
}

/** Deterministic tokens after `prompt`: stops after the end-of-sequence token (kept) or at `maxTokens`. */
function sampleFrom(prompt: readonly number[], maxTokens: number, salt: number): { tokens: number[]; logprobs: number[]; finishReason: "stop" | "length" } {
  const tokens: number[] = [];
  let previous = prompt.reduce((sum, token) => sum + token, salt);
  while (tokens.length < maxTokens) {
    const token = 3 + ((previous * 31 + 7) % (FAKE_VOCABULARY - 3));
    const next = tokens.length === 5 ? FAKE_EOS : token;
    tokens.push(next);
    if (next === FAKE_EOS) return { tokens, logprobs: tokens.map((value) => fakeLogprob(value, salt)), finishReason: "stop" };
    previous = token;
  }
  return { tokens, logprobs: tokens.map((value) => fakeLogprob(value, salt)), finishReason: "length" };
}

/**
 * Writes a small peft LoRA adapter folder (`adapter_config.json` and `adapter_model.safetensors`
 * with one adapted `q_proj`) as the reference trainer's export does, for tests without a trainer.
 */
export function writePeftAdapterFixture(folder: string, rank = 4): void {
  mkdirSync(folder, { recursive: true });
  const config = { peft_type: "LORA", r: rank, lora_alpha: 32, target_modules: ["q_proj"], base_model_name_or_path: FAKE_BASE_MODEL, inference_mode: true };
  writeFileSync(join(folder, "adapter_config.json"), JSON.stringify(config, null, 2));
  const hidden = 8;
  const tensors: [string, number[]][] = [
    ["base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", [rank, hidden]],
    ["base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", [hidden, rank]],
  ];
  const header: Record<string, unknown> = { __metadata__: { format: "pt" } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((product, size) => product * size, 1);
    header[name] = { dtype: "F32", shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let headerText = JSON.stringify(header);
  headerText += " ".repeat((8 - (headerText.length % 8)) % 8);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(headerText.length));
  const data = Buffer.alloc(offset);
  for (let index = 0; index < offset / 4; index += 1) data.writeFloatLE(((index % 13) - 6) / 100, index * 4);
  writeFileSync(join(folder, "adapter_model.safetensors"), Buffer.concat([prefix, Buffer.from(headerText, "utf8"), data]));
}
