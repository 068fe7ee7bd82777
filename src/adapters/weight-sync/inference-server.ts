import { ConfigError, ModelUnavailableError } from "../../spec/index.js";

/** An OpenAI-compatible inference server that loads LoRA adapters at runtime. */
export type InferenceServerKind = "vllm" | "sglang";

/** How each kind is named in messages. */
export const INFERENCE_SERVER_NAMES: Readonly<Record<InferenceServerKind, string>> = { vllm: "vLLM", sglang: "SGLang" };

/**
 * The runtime LoRA routes of each server, both `POST` with a JSON body `{"lora_name", "lora_path"}`
 * (load) or `{"lora_name"}` (unload):
 *
 * - vLLM: `/v1/load_lora_adapter`, `/v1/unload_lora_adapter`, registered only when the server runs
 *   with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` (without it the route does not exist: 404 for any body,
 *   where the route answers a body without `lora_name` with 400, or 422 from plain FastAPI), and usable
 *   only with `--enable-lora` (vllm/entrypoints/serve/lora/api_router.py; docs.vllm.ai
 *   "LoRA Adapters", "Dynamically serving LoRA Adapters"). A load answers 200 with a plain-text
 *   success line, 404 (`NotFoundError`) when no adapter is found at `lora_path`, 400 when the name is
 *   already loaded, and 400 (older releases) or 500 (current ones) when the engine refuses the adapter;
 *   errors carry `{"error": {"message", "type", "code"}}` (older releases `{"object": "error", "message", ...}`).
 *   An unload of an unknown name answers 404.
 * - SGLang: `/load_lora_adapter`, `/unload_lora_adapter` (python/sglang/srt/entrypoints/http_server.py;
 *   docs.sglang.io "LoRA Serving", "Dynamic LoRA loading"): 200 `{"success": true, ...}`, or 400
 *   `{"success": false, "error_message"}` for any refusal, including a server started without `--enable-lora`.
 */
export const LORA_ROUTES: Readonly<Record<InferenceServerKind, { readonly load: string; readonly unload: string }>> = {
  vllm: { load: "/v1/load_lora_adapter", unload: "/v1/unload_lora_adapter" },
  sglang: { load: "/load_lora_adapter", unload: "/unload_lora_adapter" },
};

/** One answer of a server: the HTTP status, the body text and the body parsed as JSON (null when it is not JSON). */
export interface ServerAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/**
 * The server root of `url` (`http://host:port`, trailing slashes removed), as given in `trainer.engine.url`.
 * @param key the config key named in errors. @default "trainer.engine.url"
 * @throws ConfigError for a URL that is not http(s) or that ends in `/v1` (the routes are under the root)
 */
export function serverRootOf(url: string, key = "trainer.engine.url"): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ConfigError(`${key} must be the server's http(s) root, e.g. http://127.0.0.1:8000; got ${JSON.stringify(url)}`, { cause: error });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new ConfigError(`${key} must be an http(s) URL, got ${JSON.stringify(url)}`);
  const root = url.replace(/\/+$/, "");
  if (/\/v1$/.test(root)) throw new ConfigError(`${key} is the server root without /v1 (envforge adds the routes), e.g. ${root.slice(0, -3)}; got ${JSON.stringify(url)}`);
  return root;
}

/**
 * POSTs `body` as JSON to `url` once, and returns whatever the server answered (any status).
 * @param timeoutMs milliseconds before the request is abandoned
 * @param apiKey sent as `Authorization: Bearer <apiKey>` when given (vLLM `--api-key`)
 * @param fetchImpl injected for tests. @default globalThis.fetch
 * @throws ModelUnavailableError (retryable) when the server cannot be reached or does not answer within `timeoutMs`
 */
export async function postToServer(
  url: string,
  body: unknown,
  timeoutMs: number,
  apiKey?: string,
  fetchImpl: typeof globalThis.fetch = globalThis.fetch,
): Promise<ServerAnswer> {
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw new ModelUnavailableError(`${timedOut ? `no answer within ${timeoutMs} ms from` : "cannot reach"} ${url}: ${(error as Error).message}`, { retryable: true, cause: error });
  }
  let json: unknown = null;
  try {
    json = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, text, json };
}

/** The error text of a server answer: vLLM's `error.message` or `message`, SGLang's `error_message`, FastAPI's `detail`, else the body. */
export function serverMessage(answer: ServerAnswer): string {
  const body = (answer.json ?? {}) as { error?: { message?: unknown } | string; message?: unknown; error_message?: unknown; detail?: unknown };
  const nested = typeof body.error === "object" && body.error !== null ? body.error.message : body.error;
  for (const value of [nested, body.message, body.error_message, body.detail]) {
    if (typeof value === "string" && value.length > 0) return value;
  }
  return answer.text.slice(0, 300) || `HTTP ${answer.status}`;
}
