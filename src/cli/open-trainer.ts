import { join } from "node:path";
import type { Config } from "../config/index.js";
import { CheckpointingTrainer, RUN_FILES, restoreTrainerCheckpoint, TRAINER_CHECKPOINT_META, type TrainerCheckpoint } from "../core/selfplay/index.js";
import { embeddedModelPath } from "../adapters/llm/index.js";
import { NoopTrainer, startReferenceTrainer, stopReferenceTrainer, TinkerHttp, TinkerTrainer } from "../adapters/trainer/index.js";
import { ConfigError, TrainerRequestError, type Store, type Trainer } from "../spec/index.js";

/** A trainer for a run and how to release it. */
export interface OpenedTrainer {
  readonly trainer: Trainer;
  /** Closes the client and, for `reference`, stops the trainer process. */
  close(): Promise<void>;
}

/**
 * The trainer named by `config.trainer.backend`: `noop`; `reference` (starts the
 * reference trainer in the run directory on the run's GGUF model); `tinker` (the
 * Tinker API at `config.trainer.url`). Real backends are wrapped in a
 * {@link CheckpointingTrainer}, and a resumed run restores the last checkpoint.
 *
 * @throws ConfigError when `reference` is asked for a model that is not a GGUF file, or `tinker` has no url
 * @throws TrainerUnavailableError when the backend cannot be started or reached
 */
export async function openTrainer(config: Config, outDir: string, store: Store, resume: boolean): Promise<OpenedTrainer> {
  const settings = config.trainer;
  if (settings.backend === "noop") {
    const trainer = new NoopTrainer();
    return { trainer, close: () => trainer.close() };
  }
  let url: string;
  if (settings.backend === "reference") {
    const spec = config.model.spec;
    const model = spec === "embedded" ? embeddedModelPath() : spec.endsWith(".gguf") ? spec : null;
    if (model === null) throw new ConfigError(`trainer.backend "reference" trains the run's GGUF model; model.spec ${spec} is not one (use embedded or a .gguf path, or trainer.backend "tinker")`);
    url = (await startReferenceTrainer({ runDir: outDir, model, port: settings.port, threads: config.model.threads })).url;
  } else {
    if (settings.url === null) throw new ConfigError(`trainer.backend "tinker" needs trainer.url (the server root, e.g. http://127.0.0.1:8765)`);
    url = settings.url;
  }
  const apiKey = process.env[settings.apiKeyEnv];
  const http = new TinkerHttp({ baseUrl: url, requestTimeoutMs: settings.requestTimeoutMs, ...(apiKey ? { apiKey } : {}) });
  const baseModel = settings.baseModel ?? (await firstListedModel(http));
  const checkpoint = resume ? ((store.getMeta(TRAINER_CHECKPOINT_META) as TrainerCheckpoint | undefined) ?? null) : null;
  const client = await TinkerTrainer.create(http, { baseModel, loraRank: settings.loraRank, seed: config.seed, policyVersion: checkpoint?.policyVersion ?? 0 });
  if (checkpoint !== null) await restoreTrainerCheckpoint(client, store);
  const trainer = new CheckpointingTrainer(client, { store, metricsPath: join(outDir, RUN_FILES.metrics), checkpointEvery: settings.checkpointEvery });
  return {
    trainer,
    close: async () => {
      await trainer.close();
      if (settings.backend === "reference") await stopReferenceTrainer(outDir);
    },
  };
}

async function firstListedModel(http: TinkerHttp): Promise<string> {
  const capabilities = await http.get<{ supported_models?: { model_name?: string }[] }>("/api/v1/get_server_capabilities");
  const name = capabilities.supported_models?.[0]?.model_name;
  if (typeof name !== "string") throw new TrainerRequestError("the trainer lists no supported model; set trainer.baseModel", { status: 200 });
  return name;
}
