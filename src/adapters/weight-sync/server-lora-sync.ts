import { existsSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError, LoraAdapterError, ModelUnavailableError, type WeightSync, type WeightSyncRequest, type WeightSyncResult } from "../../spec/index.js";
import type { TinkerHttp } from "../trainer/index.js";
import { INFERENCE_SERVER_NAMES, LORA_ROUTES, postToServer, serverMessage, serverRootOf, type InferenceServerKind, type ServerAnswer } from "./inference-server.js";
import { checkPeftAdapter } from "./peft-adapter-check.js";
import { exportPeftLora } from "./trainer-lora-export.js";

/** Options of {@link ServerLoraSync}. */
export interface ServerLoraSyncOptions {
  /** Which server: `vllm` or `sglang`. */
  readonly kind: InferenceServerKind;
  /** The server's root URL, e.g. `http://127.0.0.1:8000` (no `/v1`). */
  readonly url: string;
  /** HTTP client of the reference trainer, which writes the adapters. */
  readonly http: TinkerHttp;
  /** The trainer's id of the training run whose adapter is synced (`TinkerTrainer.modelId`). */
  readonly modelId: string;
  /**
   * Absolute folder the trainer writes adapter folders into and the server reads them from, at
   * this same path on both (one machine, or a shared file system mounted at the same place).
   */
  readonly directory: string;
  /** Prefix of the adapters' names on the server (letters, digits, `_`, `-`). @default "envforge" */
  readonly adapterName?: string;
  /**
   * Adapters kept loaded on the server and on disk (the newest); older ones are unloaded and their
   * folders deleted after a sync. Two keep the previous version servable while the newest loads. @default 2
   */
  readonly keep?: number;
  /**
   * Distinguishes this run's adapters from those an earlier process loaded into the same long-lived
   * server (a name can be loaded only once). @default the start time in base 36
   */
  readonly instance?: string;
  /** Timeout of one load or unload request, milliseconds. @default 120000 */
  readonly requestTimeoutMs?: number;
  /** API key sent as a bearer token (vLLM `--api-key`). @default none */
  readonly apiKey?: string;
  /** Injected for tests. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Injected for tests. @default performance.now */
  readonly now?: () => number;
}

const NAME = /^[A-Za-z0-9_-]{1,128}$/;
/** Gateway and overload statuses: the server (or a proxy before it) is not there right now. */
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * Weight sync from the reference trainer into a vLLM or SGLang server through runtime LoRA
 * loading (the way slime, verl and SkyRL move trained weights into their samplers, here as LoRA
 * adapters): the trainer writes its live adapter as a peft folder
 * `<directory>/<adapterName>-<instance>-<version name>` ({@link exportPeftLora}, written aside and
 * renamed), the folder is checked when it is visible here ({@link checkPeftAdapter}), and the
 * server loads it under that name (`POST {url}{@link LORA_ROUTES}.load`, body
 * `{"lora_name", "lora_path"}`). Requests then name the adapter as their model (vLLM's `model`,
 * SGLang's `lora_path`): {@link ServerLoraSync.adapter}. Adapters beyond the newest `keep` are
 * unloaded (`{"lora_name"}` to the unload route) and their folders deleted.
 *
 * The server must run with runtime LoRA loading on: vLLM with the environment variable
 * `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` and `--enable-lora --max-lora-rank <≥ rank>`; SGLang
 * with `--enable-lora --max-lora-rank <≥ rank> --lora-target-modules all`. The HTTP exchanges
 * follow the servers' documented contracts ({@link LORA_ROUTES}); envforge's tests run them
 * against local fakes of those contracts, not against a real engine.
 *
 * @throws ConfigError for a relative `directory`, a bad `url`, `keep` or name; and when the server has
 *   no load route (404 for any body, 405 or 501: runtime LoRA loading is off), naming the flags to start it with
 * @throws TrainerUnavailableError / TrainerRequestError when the trainer cannot write the adapter
 * @throws LoraAdapterError `missing` / `truncated` / `not_lora` when the folder written is not a whole
 *   LoRA adapter, `missing` when the server finds no adapter at the path (the folder is not shared with
 *   it), `refused` when the server refuses the adapter (rank above its maximum, modules it cannot adapt,
 *   another base model, LoRA not enabled), with the server's own message
 * @throws ModelUnavailableError (retryable) when the server cannot be reached, times out, or answers 502–504
 */
export class ServerLoraSync implements WeightSync {
  readonly name: string;
  private readonly root: string;
  private readonly server: string;
  private readonly loaded: { readonly name: string; readonly path: string }[] = [];
  private readonly now: () => number;
  private readonly instance: string;

  constructor(private readonly options: ServerLoraSyncOptions) {
    this.name = `${options.kind}-lora`;
    this.server = INFERENCE_SERVER_NAMES[options.kind];
    this.root = serverRootOf(options.url);
    if (!isAbsolute(options.directory)) throw new ConfigError(`trainer.engine.adapterDir must be an absolute folder shared by the trainer and ${this.server}, got ${options.directory}`);
    if (options.keep !== undefined && (!Number.isInteger(options.keep) || options.keep < 1)) {
      throw new ConfigError(`weight sync keep must be an integer ≥ 1, got ${options.keep}`);
    }
    this.instance = options.instance ?? Date.now().toString(36);
    for (const [key, value] of [["trainer.engine.adapterName", options.adapterName ?? "envforge"], ["weight sync instance", this.instance]] as const) {
      if (!NAME.test(value)) throw new ConfigError(`${key} ${JSON.stringify(value)} must use letters, digits, '_' and '-'`);
    }
    this.now = options.now ?? (() => performance.now());
  }

  /** Name of the newest adapter loaded on the server, which requests name as their model; null before the first sync. */
  /** Adapter names a load was sent for (a retry of one the server already holds is no error). */
  private readonly attempted = new Set<string>();

  get adapter(): string | null {
    return this.loaded.at(-1)?.name ?? null;
  }

  async sync(request: WeightSyncRequest): Promise<WeightSyncResult> {
    if (!NAME.test(request.name)) throw new ConfigError(`weight version name ${JSON.stringify(request.name)} must use letters, digits, '_' and '-'`);
    const loraName = `${this.options.adapterName ?? "envforge"}-${this.instance}-${request.name}`;
    const path = join(this.options.directory, loraName);
    const started = this.now();
    await exportPeftLora(this.options.http, { modelId: this.options.modelId, path });
    // the trainer wrote it on its file system; when this machine sees the folder too, check it is whole
    if (existsSync(this.options.directory)) checkPeftAdapter(path);
    const exported = this.now();
    await this.load(loraName, path);
    const loaded = this.now();
    if (!this.loaded.some((entry) => entry.name === loraName)) this.loaded.push({ name: loraName, path });
    await this.retire(this.options.keep ?? 2);
    return { name: request.name, policyVersion: request.policyVersion, location: path, exportMs: exported - started, loadMs: loaded - exported };
  }

  /** Unloads every adapter this sync loaded and deletes their folders; failures are ignored (the server may be gone). */
  async close(): Promise<void> {
    await this.retire(0);
  }

  private async load(loraName: string, path: string): Promise<void> {
    const route = `${this.root}${LORA_ROUTES[this.options.kind].load}`;
    const retried = this.attempted.has(loraName);
    this.attempted.add(loraName);
    const answer = await this.post(route, { lora_name: loraName, lora_path: path });
    const refusedInBody = this.options.kind === "sglang" && (answer.json as { success?: unknown } | null)?.success === false;
    if (answer.status === 200 && !refusedInBody) return;
    // an earlier attempt at this name (one that timed out, say) may have loaded it after all
    if (retried && answer.status === 400 && /already/i.test(serverMessage(answer))) return;
    if (UNAVAILABLE.has(answer.status)) {
      throw new ModelUnavailableError(`${this.server} at ${this.root} answered ${answer.status} to ${LORA_ROUTES[this.options.kind].load}: ${serverMessage(answer)}`, { retryable: true });
    }
    if (answer.status === 405 || answer.status === 501 || (answer.status === 404 && (await this.routeMissing(route)))) throw this.runtimeLoraOff(answer);
    if (answer.status === 404) {
      throw new LoraAdapterError(
        "missing",
        `${this.server} at ${this.root} found no LoRA adapter at ${path} (${serverMessage(answer)}): the server reads the folder the trainer wrote, ` +
          `so trainer.engine.adapterDir must be on a file system both see at the same absolute path`,
      );
    }
    throw new LoraAdapterError(
      "refused",
      `${this.server} at ${this.root} refused the LoRA adapter at ${path} (HTTP ${answer.status}: ${serverMessage(answer)}); ${this.startFlags()}, ` +
        `and serve the same base model the trainer trains`,
    );
  }

  /** Whether the load route is absent: a body without `lora_name` is answered 404 too, where the route would refuse it as invalid (400/422). */
  private async routeMissing(route: string): Promise<boolean> {
    return (await this.post(route, {})).status === 404;
  }

  private runtimeLoraOff(answer: ServerAnswer): ConfigError {
    const route = LORA_ROUTES[this.options.kind].load;
    return new ConfigError(`${this.server} at ${this.root} has no runtime LoRA loading (POST ${route} answered ${answer.status}: ${serverMessage(answer)}); ${this.startFlags()}`);
  }

  private startFlags(): string {
    return this.options.kind === "vllm"
      ? `start vLLM with the environment variable VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and the flags --enable-lora --max-lora-rank <at least trainer.loraRank>`
      : `start SGLang with --enable-lora --max-lora-rank <at least trainer.loraRank> --lora-target-modules all`;
  }

  /** Unloads (and deletes the folders of) the oldest adapters until `keep` remain; a failed unload keeps its folder. */
  private async retire(keep: number): Promise<void> {
    while (this.loaded.length > keep) {
      const oldest = this.loaded.shift() as { name: string; path: string };
      let unloaded = false;
      try {
        const answer = await this.post(`${this.root}${LORA_ROUTES[this.options.kind].unload}`, { lora_name: oldest.name });
        unloaded = answer.status === 200 && (answer.json as { success?: unknown } | null)?.success !== false;
      } catch {
        unloaded = false;
      }
      if (unloaded) rmSync(oldest.path, { recursive: true, force: true });
    }
  }

  private post(url: string, body: unknown): Promise<ServerAnswer> {
    return postToServer(url, body, this.options.requestTimeoutMs ?? 120_000, this.options.apiKey, this.options.fetch);
  }
}
