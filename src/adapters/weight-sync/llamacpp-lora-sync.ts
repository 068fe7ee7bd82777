import { rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError, type WeightSync, type WeightSyncRequest, type WeightSyncResult } from "../../spec/index.js";
import type { LoraAdapterOptions } from "../llm/index.js";
import type { TinkerHttp } from "../trainer/index.js";
import { exportGgufLora } from "./trainer-lora-export.js";

/** An engine that can swap its LoRA adapter ({@link LlamaCppModel} is one). */
export interface LoraEngine {
  setAdapter(adapter: LoraAdapterOptions | null): Promise<void>;
}

/** Options of {@link LlamaCppLoraSync}. */
export interface LlamaCppLoraSyncOptions {
  /** HTTP client of the reference trainer. */
  readonly http: TinkerHttp;
  /** The trainer's id of the training run whose adapter is synced (`TinkerTrainer.modelId`). */
  readonly modelId: string;
  /** The sampling engine that loads each adapter. */
  readonly engine: LoraEngine;
  /** Absolute folder for adapter files, on a file system the trainer and the engine share. */
  readonly directory: string;
  /** Adapter files kept on disk (the newest); older ones are deleted after a sync. @default 2 */
  readonly keep?: number;
  /** Scale of the adapter in the engine (1 = as trained). @default 1 */
  readonly scale?: number;
  /** Injected for tests. @default performance.now */
  readonly now?: () => number;
}

const NAME = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Weight sync from the reference trainer to the embedded llama.cpp engine: the trainer
 * exports its LoRA adapter as a GGUF LoRA file (`<directory>/<name>.gguf`), and the engine
 * reopens its context with that adapter on the same base GGUF. Costs are reported per
 * sync (`exportMs`, `loadMs`).
 *
 * @throws ConfigError for a bad `directory`, `keep` or version name
 * @throws TrainerUnavailableError / TrainerRequestError when the trainer cannot export
 * @throws LoraAdapterError / ModelUnavailableError when the engine refuses the adapter
 */
export class LlamaCppLoraSync implements WeightSync {
  readonly name = "llamacpp-lora";
  private readonly written: string[] = [];
  private readonly now: () => number;

  constructor(private readonly options: LlamaCppLoraSyncOptions) {
    if (!isAbsolute(options.directory)) throw new ConfigError(`weight sync directory must be absolute, got ${options.directory}`);
    if (options.keep !== undefined && (!Number.isInteger(options.keep) || options.keep < 1)) {
      throw new ConfigError(`weight sync keep must be an integer ≥ 1, got ${options.keep}`);
    }
    this.now = options.now ?? (() => performance.now());
  }

  async sync(request: WeightSyncRequest): Promise<WeightSyncResult> {
    if (!NAME.test(request.name)) throw new ConfigError(`weight version name ${JSON.stringify(request.name)} must use letters, digits, '_' and '-'`);
    const path = join(this.options.directory, `${request.name}.gguf`);
    const started = this.now();
    await exportGgufLora(this.options.http, { modelId: this.options.modelId, path });
    const exported = this.now();
    await this.options.engine.setAdapter({ filePath: path, scale: this.options.scale ?? 1 });
    const loaded = this.now();
    this.prune(path);
    return { name: request.name, policyVersion: request.policyVersion, location: path, exportMs: exported - started, loadMs: loaded - exported };
  }

  /** Deletes adapter files beyond the newest `keep` (the engine holds a loaded adapter in memory, not on disk). */
  private prune(latest: string): void {
    const index = this.written.indexOf(latest);
    if (index >= 0) this.written.splice(index, 1);
    this.written.push(latest);
    while (this.written.length > (this.options.keep ?? 2)) {
      rmSync(this.written.shift() as string, { force: true });
    }
  }
}
