import { existsSync, mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Config } from "../config/index.js";
import {
  CheckpointingTrainer,
  PROBE_COMPLETION,
  PROBE_MESSAGES,
  probeDatum,
  RUN_FILES,
  restoreTrainerCheckpoint,
  TRAINER_CHECKPOINT_META,
  type TrainerCheckpoint,
} from "../core/selfplay/index.js";
import { embeddedModelOf, ggufPathOf, isEmbeddedSpec, LlamaCppModel, setupCommandFor } from "../adapters/llm/index.js";
import {
  checkEngineTrainerSync,
  EnginePolicy,
  INFERENCE_SERVER_NAMES,
  LlamaCppLoraSync,
  openServerSamplingEngine,
  serverRootOf,
  ServerLoraSync,
  type InferenceServerKind,
  type SyncCheckResult,
  type TokenScoringEngine,
} from "../adapters/weight-sync/index.js";
import {
  LocalChatTokenizer,
  NoopTrainer,
  openReferenceTokenizerMirror,
  REFERENCE_TRAINER_DIR,
  ReferenceTrainerTokenizer,
  startReferenceTrainer,
  stopReferenceTrainer,
  TINY_RANDOM_MODEL,
  TinkerHttp,
  TinkerLanguageModel,
  TinkerTrainer,
  type ChatTokenizer,
} from "../adapters/trainer/index.js";
import { ConfigError, EnvforgeError, TrainerRequestError, type Datum, type LanguageModel, type Store, type Trainer } from "../spec/index.js";
import { modelOptionsOf } from "./model-options.js";

/** A trainer for a run, the policy that samples from it, and how to release them. */
export interface OpenedTrainer {
  readonly trainer: Trainer;
  /**
   * The trained policy as a {@link LanguageModel}, or null for `noop` (the run uses `model.spec`):
   * an {@link EnginePolicy} on llama.cpp with `trainer.sampler` "engine" on a GGUF model, or on the
   * vLLM / SGLang server of `trainer.engine` when its kind is one of them, else
   * {@link OpenedTrainer.trainerPolicy}.
   */
  readonly policy: LanguageModel | null;
  /**
   * The trainer's own sampler as a policy (switched to each newly published version), null for
   * `noop`; the same object as `policy` when the policy samples on the trainer. Benchmarks compare the two.
   */
  readonly trainerPolicy: TinkerLanguageModel | null;
  /** Whether `policy` samples on an engine, llama.cpp or a server (its logprobs are then corrected against the trainer at each step). */
  readonly engineSampled: boolean;
  /** The sync check made at start (engine policy only, unless `trainer.syncCheckTolerance` is null); else null. */
  readonly syncCheck: SyncCheckResult | null;
  /**
   * What tokenises the policy's chats and decodes its samples: `trainer.tokenizer`'s folder, the
   * local mirror of the reference trainer's tokenizer, or the trainer's routes (with why); null for `noop`.
   */
  readonly tokenizer: string | null;
  /** The logprob probe datum (fixed prompt + completion), or null for `noop`. */
  readonly probe: Datum | null;
  /** Closes the client and, for `reference`, stops the trainer process. */
  close(): Promise<void>;
}

/** Options of {@link openTrainer}. */
export interface OpenTrainerOptions {
  /** Python of the reference trainer. @default trainer/.venv/bin/python */
  readonly python?: string;
}

/**
 * The trainer named by `config.trainer.backend`: `noop`; `reference` (starts the
 * reference trainer in the run directory on `trainer.model` or the run's GGUF model);
 * `tinker` (the Tinker API at `config.trainer.url`). Real backends are wrapped in a
 * {@link CheckpointingTrainer}; a resumed run restores the last checkpoint. With
 * `reference` on a GGUF model and `trainer.sampler` "engine" (the default) the policy samples
 * on the embedded llama.cpp engine ({@link EnginePolicy}): the trainer's adapter is loaded at
 * start (into `<outDir>/adapters/`) and after every optimiser step, and the sync check compares
 * the engine's probe logprobs with the trainer's (`trainer.syncCheckTolerance`). With
 * `trainer.engine.kind` "vllm" or "sglang" (either backend; the trainer must serve the
 * `/envforge/v1/export_peft_lora` route, as the reference trainer does) the policy samples on that
 * server instead: the trainer's adapter is written as a peft folder into `trainer.engine.adapterDir`
 * and loaded by the server at start and after every optimiser step ({@link ServerLoraSync}), a server
 * that cannot load it fails the run here, and the same sync check runs on the server. Otherwise the
 * policy samples through the trainer's sampler, starting from the base weights (or
 * the restored checkpoint's) and switching to every newly published version. Its
 * chat messages are tokenised, its samples decoded and the logprob probe tokenised by
 * the local tokenizer folder `trainer.tokenizer` ({@link LocalChatTokenizer}) when it
 * is set, else by the trainer's tokenizer routes (`/envforge/v1/tokenize`, which the
 * reference trainer serves).
 *
 * @throws ConfigError when `reference` has no trainer virtualenv (setup ran with
 *   ENVFORGE_SKIP_TRAINER=1) or no GGUF model to train, `tinker` has no url,
 *   `trainer.tokenizer` is not a usable tokenizer folder, or it is null and the
 *   server has no tokenizer route to sample the policy with, or the engine sampler cannot load
 *   the trainer's adapter or fails the sync check (the fix named: `trainer.sampler` "trainer"), or
 *   `trainer.engine.kind` "vllm" / "sglang" lacks `trainer.engine.url` or an absolute `trainer.engine.adapterDir`
 * @throws TrainerUnavailableError when the backend cannot be started or reached
 */
export async function openTrainer(config: Config, outDir: string, store: Store, resume: boolean, options: OpenTrainerOptions = {}): Promise<OpenedTrainer> {
  const settings = config.trainer;
  const plan = trainerPlanOf(config, options);
  if (plan.kind === "noop") {
    const trainer = new NoopTrainer();
    return { trainer, policy: null, trainerPolicy: null, engineSampled: false, syncCheck: null, tokenizer: null, probe: null, close: () => trainer.close() };
  }
  // read before any trainer starts, so that a bad folder costs nothing
  const localTokenizer = settings.tokenizer === null ? null : await LocalChatTokenizer.open(settings.tokenizer);
  const server = plan.server;
  let url: string;
  /** The GGUF file the reference trainer trains, which the engine policy samples on; null = sample on the trainer. */
  let engineModel: string | null = null;
  /** The GGUF file the reference trainer trains (its converted folder holds the tokenizer mirrored locally); null otherwise. */
  let trainedGguf: string | null = null;
  if (plan.kind === "reference") {
    const { model, python } = plan;
    // the trainer runs on this machine: the shared adapter folder must exist for it to write into
    if (server !== null) mkdirSync(server.adapterDir, { recursive: true });
    url = (await startReferenceTrainer({ runDir: outDir, model, port: settings.port, threads: config.model.threads, python })).url;
    if (model.toLowerCase().endsWith(".gguf")) trainedGguf = model;
    if (server === null && settings.sampler === "engine" && trainedGguf !== null) engineModel = model;
  } else {
    url = plan.url;
  }
  let engine: LlamaCppModel | null = null;
  let serverSync: ServerLoraSync | null = null;
  const stop = async () => {
    await engine?.close();
    await serverSync?.close();
    if (settings.backend === "reference") await stopReferenceTrainer(outDir);
  };
  try {
    const apiKey = process.env[settings.apiKeyEnv];
    const http = new TinkerHttp({ baseUrl: url, requestTimeoutMs: settings.requestTimeoutMs, ...(apiKey ? { apiKey } : {}) });
    const { tokenizer, tokenizerSource } = await tokenizerOf(localTokenizer, new ReferenceTrainerTokenizer(http), trainedGguf);
    const probe = await probeOf(tokenizer, url);
    const capabilities = await serverCapabilities(http, settings.baseModel === undefined);
    const baseModel = settings.baseModel ?? firstListedModel(capabilities);
    const checkpoint = resume ? ((store.getMeta(TRAINER_CHECKPOINT_META) as TrainerCheckpoint | undefined) ?? null) : null;
    const client = await TinkerTrainer.create(http, {
      baseModel,
      loraRank: settings.loraRank,
      seed: config.seed,
      policyVersion: checkpoint?.policyVersion ?? 0,
      inPassImportanceCorrection: capabilities.in_pass_importance_correction === true,
    });
    if (checkpoint !== null) await restoreTrainerCheckpoint(client, store);
    const sampler = checkpoint === null ? client.baseSampler() : await client.saveWeightsForSampler(`resume-${checkpoint.policyVersion}`);
    const trainerPolicy = new TinkerLanguageModel(sampler, tokenizer, `${baseModel}@${settings.backend}`, client.policyVersion);
    const trainer = new CheckpointingTrainer(client, {
      name: settings.backend,
      store,
      metricsPath: join(outDir, RUN_FILES.metrics),
      checkpointEvery: settings.checkpointEvery,
      onPublish: (published, policyVersion) => trainerPolicy.useSampler(published, policyVersion),
    });
    let policy: LanguageModel = trainerPolicy;
    let syncCheck: SyncCheckResult | null = null;
    if (engineModel !== null) {
      const local = modelOptionsOf(config);
      engine = await LlamaCppModel.load({ modelPath: engineModel, contextSize: local.contextSize, threads: local.threads || availableParallelism(), sequences: local.sequences, samplingTopK: local.samplingTopK, id: `${engineModel}@llama.cpp` });
      const enginePolicy = new EnginePolicy({
        engine,
        tokenizer,
        sync: new LlamaCppLoraSync({ http, modelId: client.modelId, engine, directory: makeAdapterFolder(outDir) }),
        policyVersion: () => client.policyVersion,
        id: `${baseModel}@${settings.backend}+llama.cpp`,
      });
      await startEngineSampling(enginePolicy);
      if (settings.syncCheckTolerance !== null) syncCheck = await checkSync(engine, client, probe, settings.syncCheckTolerance);
      policy = enginePolicy;
    }
    if (server !== null) {
      const name = INFERENCE_SERVER_NAMES[server.kind];
      const engineApiKey = process.env[settings.engine.apiKeyEnv];
      const keyed = engineApiKey ? { apiKey: engineApiKey } : {};
      const sync = new ServerLoraSync({
        kind: server.kind,
        url: server.url,
        directory: server.adapterDir,
        adapterName: server.adapterName,
        http,
        modelId: client.modelId,
        requestTimeoutMs: settings.engine.requestTimeoutMs,
        ...keyed,
      });
      serverSync = sync;
      const serverEngine = openServerSamplingEngine(server.kind, { url: server.url, adapter: () => sync.adapter, requestTimeoutMs: settings.engine.requestTimeoutMs, ...keyed });
      const serverPolicy = new EnginePolicy({
        engine: serverEngine,
        tokenizer,
        sync,
        policyVersion: () => client.policyVersion,
        id: `${baseModel}@${settings.backend}+${server.kind}`,
        engineName: server.kind,
      });
      await startEngineSampling(serverPolicy, `${name} sampler at ${server.url}`);
      if (settings.syncCheckTolerance !== null) syncCheck = await checkSync(serverEngine, client, probe, settings.syncCheckTolerance, `${name} sampler`);
      policy = serverPolicy;
    }
    return {
      trainer,
      policy,
      trainerPolicy,
      engineSampled: policy !== trainerPolicy,
      syncCheck,
      tokenizer: tokenizerSource,
      probe,
      close: async () => {
        await trainer.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What {@link trainerPlanOf} settled: the backend to start or reach, and the vLLM / SGLang sampler if one is named. */
export type TrainerPlan =
  | { readonly kind: "noop" }
  | { readonly kind: "reference"; readonly model: string; readonly python: string; readonly server: ServerEngine | null }
  | { readonly kind: "tinker"; readonly url: string; readonly server: ServerEngine | null };

type ServerEngine = NonNullable<ReturnType<typeof serverEngineOf>>;

/**
 * The refusals of {@link openTrainer} that need nothing started or read over the network, so
 * that a run can refuse a bad trainer config before it writes anything into its folder.
 * @throws ConfigError as {@link openTrainer} does for a missing trainer virtualenv or model file,
 *   a model that is not a GGUF file, `tinker` without a url, or `trainer.engine` naming a server
 *   without `url` or an absolute `adapterDir`
 */
export function trainerPlanOf(config: Config, options: OpenTrainerOptions = {}): TrainerPlan {
  const settings = config.trainer;
  if (settings.backend === "noop") return { kind: "noop" };
  const server = settings.sampler === "engine" ? serverEngineOf(settings.engine) : null;
  if (settings.backend === "tinker") {
    if (settings.url === null) throw new ConfigError(`trainer.backend "tinker" needs trainer.url (the server root, e.g. http://127.0.0.1:8765)`);
    return { kind: "tinker", url: settings.url, server };
  }
  const python = options.python ?? join(REFERENCE_TRAINER_DIR, ".venv/bin/python");
  if (!existsSync(python)) {
    throw new ConfigError(
      `trainer.backend "reference" needs the reference trainer's virtualenv (${python} is missing; setup skipped it with ENVFORGE_SKIP_TRAINER=1?): ` +
        `run ./scripts/setup.sh without ENVFORGE_SKIP_TRAINER, or set "trainer": { "backend": "noop" } in the config to run without training`,
    );
  }
  const spec = config.model.spec;
  const model = settings.model ?? ggufPathOf(spec);
  if (model === null) throw new ConfigError(`trainer.backend "reference" trains the run's GGUF model; model.spec ${spec} is not one (use embedded or a .gguf path, set trainer.model, or trainer.backend "tinker")`);
  if (model !== TINY_RANDOM_MODEL && !existsSync(model)) {
    const fix = settings.model === null && isEmbeddedSpec(spec) ? `the embedded model is not installed: run ${setupCommandFor(embeddedModelOf(spec))}` : "give a .gguf file or a Hugging Face model folder";
    throw new ConfigError(`${settings.model === null ? "model.spec" : "trainer.model"}: ${model} does not exist; ${fix}`);
  }
  return { kind: "reference", model, python, server };
}

/**
 * The policy's chat tokenizer: `trainer.tokenizer`'s folder when set; else, for the reference
 * trainer on a GGUF file, the local mirror of its tokenizer when that tokenises as the trainer
 * does (no HTTP round trip per turn); else the trainer's routes.
 */
async function tokenizerOf(local: LocalChatTokenizer | null, routes: ReferenceTrainerTokenizer, trainedGguf: string | null): Promise<{ tokenizer: ChatTokenizer; tokenizerSource: string }> {
  if (local !== null) return { tokenizer: local, tokenizerSource: `the folder ${local.folder} (trainer.tokenizer)` };
  if (trainedGguf === null) return { tokenizer: routes, tokenizerSource: "the trainer's tokenizer routes" };
  const mirror = await openReferenceTokenizerMirror(trainedGguf, routes);
  if (mirror.kind === "mirror") return { tokenizer: mirror.tokenizer, tokenizerSource: `a local mirror of the trainer's tokenizer (${mirror.folder})` };
  return { tokenizer: routes, tokenizerSource: `the trainer's tokenizer routes (no local mirror: ${mirror.reason})` };
}

/** The run's folder of adapter files the engine loads (absolute, as the trainer writes them). */
function makeAdapterFolder(outDir: string): string {
  const folder = resolve(outDir, "adapters");
  mkdirSync(folder, { recursive: true });
  return folder;
}

const SAMPLER_FIX = `set "trainer": { "sampler": "trainer" } in the config to sample on the trainer instead`;

/** `trainer.engine` when it names a server, checked: a ConfigError naming the missing key before anything starts. */
function serverEngineOf(settings: Config["trainer"]["engine"]): { kind: InferenceServerKind; url: string; adapterDir: string; adapterName: string } | null {
  if (settings.kind === "embedded") return null;
  const name = INFERENCE_SERVER_NAMES[settings.kind];
  if (settings.url === null) {
    throw new ConfigError(`trainer.engine.kind "${settings.kind}" needs trainer.engine.url, the ${name} server's root (e.g. http://127.0.0.1:8000), or set trainer.engine.kind "embedded"`);
  }
  if (settings.adapterDir === null || !isAbsolute(settings.adapterDir)) {
    throw new ConfigError(
      `trainer.engine.kind "${settings.kind}" needs trainer.engine.adapterDir, an absolute folder the trainer writes adapters into and ${name} reads them from ` +
        `(the same path on both: one machine, or a shared file system)${settings.adapterDir === null ? "" : `; got ${settings.adapterDir}`}`,
    );
  }
  return { kind: settings.kind, url: serverRootOf(settings.url), adapterDir: settings.adapterDir, adapterName: settings.adapterName };
}

/** Loads the trainer's current adapter into the engine: a sampler that cannot load one fails the run here. */
async function startEngineSampling(policy: EnginePolicy, sampler = "llama.cpp sampler"): Promise<void> {
  try {
    await policy.syncNow();
  } catch (error) {
    if (error instanceof EnvforgeError && !error.retryable) {
      throw new ConfigError(`the ${sampler} cannot load the trainer's LoRA adapter (${error.message}); ${SAMPLER_FIX}`, { cause: error });
    }
    throw error;
  }
}

/** The sync check: the engine's probe logprobs against the trainer's, with the trainer's adapter loaded in both. */
async function checkSync(engine: TokenScoringEngine, trainer: Required<Pick<Trainer, "forward">>, probe: Datum, tolerance: number, sampler = "llama.cpp sampler"): Promise<SyncCheckResult> {
  const result = await checkEngineTrainerSync(engine, trainer, probe, { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 }, tolerance);
  if (!result.passed) {
    throw new ConfigError(
      `sync check failed: the ${sampler}'s logprobs of the probe differ from the trainer's by ${result.meanAbsDifference.toFixed(3)} nats/token on average ` +
        `(tolerance trainer.syncCheckTolerance ${tolerance}), so it would not sample the policy being trained; ${SAMPLER_FIX}, or raise trainer.syncCheckTolerance`,
    );
  }
  return result;
}

/**
 * The probe datum, tokenised as the policy's prompts are; with the server's routes, a
 * server without them cannot serve the policy (the fix is `trainer.tokenizer`).
 */
async function probeOf(tokenizer: ChatTokenizer, url: string): Promise<Datum> {
  try {
    return probeDatum(await tokenizer.encodeChat(PROBE_MESSAGES), await tokenizer.encodeText(PROBE_COMPLETION));
  } catch (error) {
    if (error instanceof TrainerRequestError && (error.status === 404 || error.status === 405 || error.status === 501)) {
      throw new ConfigError(
        `the trainer at ${url} has no tokenizer route (/envforge/v1/tokenize), which envforge tokenises the policy's prompts with when trainer.tokenizer is null. ` +
          `Hosted Tinker and SkyRL's Tinker server do not serve it: set trainer.tokenizer to a local folder with the base model's tokenizer ` +
          `(hf download <model> tokenizer.json tokenizer_config.json chat_template.jinja --local-dir <folder>), ` +
          `or run the reference trainer (trainer.backend "reference", or "tinker" with a server started by envforge trainer up), or trainer.backend "noop"`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** What `get_server_capabilities` answers (Tinker API; `in_pass_importance_correction` is the reference trainer's extension). */
interface ServerCapabilities {
  readonly supported_models?: { readonly model_name?: string }[];
  readonly in_pass_importance_correction?: boolean;
}

/**
 * The trainer's `get_server_capabilities`. When `required` is false (the base model is configured)
 * a backend that does not answer it counts as one without extensions.
 */
async function serverCapabilities(http: TinkerHttp, required: boolean): Promise<ServerCapabilities> {
  try {
    return await http.get<ServerCapabilities>("/api/v1/get_server_capabilities");
  } catch (error) {
    if (required) throw error;
    process.stderr.write(`envforge: the trainer did not answer get_server_capabilities (${(error as Error).message}); off-policy datums are corrected with a forward pass first\n`);
    return {};
  }
}

function firstListedModel(capabilities: ServerCapabilities): string {
  const name = capabilities.supported_models?.[0]?.model_name;
  if (typeof name !== "string") throw new TrainerRequestError("the trainer lists no supported model; set trainer.baseModel", { status: 200 });
  return name;
}
