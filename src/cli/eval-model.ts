import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { freePort } from "../support/free-port.js";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { parseConfig, type Config } from "../config/index.js";
import { ggufPathOf, LlamaCppModel, openModel, type OpenModelOptions } from "../adapters/llm/index.js";
import { REFERENCE_TRAINER_DIR, startReferenceTrainer, stopReferenceTrainer, TinkerHttp } from "../adapters/trainer/index.js";
import { exportGgufLora } from "../adapters/weight-sync/index.js";
import { ConfigError, type LanguageModel } from "../spec/index.js";
import { describeRunStore, holdsRunStore, openRunFolderStore, runStoreLocation } from "../adapters/store/index.js";

/** A run's stored config (defaults filled in), read from `<runDir>/envforge.db`. */
export function storedRunConfig(runDir: string): Config {
  const path = describeRunStore(runStoreLocation(runDir, null));
  if (!holdsRunStore(runDir)) throw new ConfigError(`--run: ${runDir} holds no run (${path} not found)`);
  const store = openRunFolderStore(runDir);
  try {
    const stored = store.getMeta("config");
    if (stored === undefined) throw new ConfigError(`--run: ${path} has no stored run config`);
    const { out: _out, ...config } = stored as Record<string, unknown>;
    return parseConfig(config, `${path} (stored config)`);
  } finally {
    store.close();
  }
}

/** Where a checkpoint's adapter comes from. */
export type CheckpointAdapter =
  | { readonly kind: "base" }
  | { readonly kind: "gguf"; readonly path: string }
  | { readonly kind: "sampler"; readonly samplerPath: string; readonly target: string };

/**
 * The adapter of step `step` of a run: none at step 0 (the base model); the GGUF LoRA the run's
 * engine loaded (`<run>/adapters/policy-N.gguf`, the newest two are kept) or one exported before
 * (`<run>/eval-adapters/step-N.gguf`); else the trainer's published sampler checkpoint
 * (`<run>/trainer-checkpoints/<model>/sampler_weights/step-N.pt`, every step is kept), which
 * must be exported to GGUF first.
 *
 * @throws ConfigError naming the steps that exist when step `step` has no adapter
 */
export function checkpointAdapter(runDir: string, step: number): CheckpointAdapter {
  if (step === 0) return { kind: "base" };
  for (const path of [join(runDir, "adapters", `policy-${step}.gguf`), join(runDir, "eval-adapters", `step-${step}.gguf`)]) {
    if (existsSync(path)) return { kind: "gguf", path: resolve(path) };
  }
  for (const modelId of listFolders(join(runDir, "trainer-checkpoints"))) {
    if (existsSync(join(runDir, "trainer-checkpoints", modelId, "sampler_weights", `step-${step}.pt`))) {
      return { kind: "sampler", samplerPath: `tinker://${modelId}/sampler_weights/step-${step}`, target: resolve(runDir, "eval-adapters", `step-${step}.gguf`) };
    }
  }
  const steps = checkpointSteps(runDir);
  throw new ConfigError(`--step ${step}: ${runDir} has no adapter for step ${step}; steps with one: ${steps.length === 0 ? "none (only --step 0, the base model)" : steps.join(", ")}`);
}

/** The optimiser steps of a run that have an adapter (published sampler checkpoints or engine adapters), ascending. */
export function checkpointSteps(runDir: string): number[] {
  const steps = new Set<number>();
  const collect = (folder: string, pattern: RegExp) => {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const match = pattern.exec(name);
      if (match) steps.add(Number(match[1]));
    }
  };
  collect(join(runDir, "adapters"), /^policy-(\d+)\.gguf$/);
  collect(join(runDir, "eval-adapters"), /^step-(\d+)\.gguf$/);
  for (const modelId of listFolders(join(runDir, "trainer-checkpoints"))) collect(join(runDir, "trainer-checkpoints", modelId, "sampler_weights"), /^step-(\d+)\.pt$/);
  return [...steps].filter((step) => step > 0).sort((a, b) => a - b);
}

function listFolders(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** The model of `--run DIR --step N`, with the checkpoint label stored with its results. */
export interface CheckpointModel {
  readonly model: LanguageModel;
  readonly checkpoint: string;
  readonly spec: string;
}

/**
 * Opens the policy of a run at optimiser step `step` as the run sampled it: the run's GGUF model
 * on the embedded llama.cpp engine with the step's LoRA adapter (the engine policy of training,
 * `trainer.sampler` "engine"). A step whose adapter exists only as the trainer's sampler checkpoint
 * is exported to GGUF once by a reference trainer started for that (about a minute to load the
 * model on a CPU), cached in `<run>/eval-adapters/`. A run whose model is not a GGUF (an
 * OpenAI-compatible server) is evaluated at step 0 only.
 *
 * @param options engine options (threads, context size, sequences) of the evaluation's own config, whose base is the
 *   run's stored config (`modelOptionsOf`); the model itself is always the run's `model.spec`
 * @throws ConfigError for a missing run, step or trainer virtualenv
 */
export async function openCheckpointModel(runDir: string, step: number, options: OpenModelOptions): Promise<CheckpointModel> {
  const config = storedRunConfig(runDir);
  const spec = config.model.spec;
  const checkpoint = `${resolve(runDir)}@step-${step}`;
  if (step === 0) return { model: await openModel(spec, options), checkpoint, spec };
  const gguf = config.trainer.model ?? ggufPathOf(spec);
  if (gguf === null || !gguf.endsWith(".gguf")) throw new ConfigError(`--step ${step}: the run's model ${spec} is not a GGUF file, so its adapters cannot be loaded into the embedded engine; evaluate it with --step 0 or through its server with --model`);
  let adapter = checkpointAdapter(runDir, step);
  if (adapter.kind === "sampler") adapter = { kind: "gguf", path: await exportSamplerAdapter(runDir, gguf, adapter.samplerPath, adapter.target) };
  const path = adapter.kind === "gguf" ? adapter.path : null;
  const model = await LlamaCppModel.load({
    modelPath: gguf,
    contextSize: options.contextSize ?? 4096,
    threads: options.threads || availableParallelism(),
    sequences: options.sequences ?? 1,
    samplingTopK: options.samplingTopK ?? 0,
    id: `${spec}@step-${step}`,
    ...(path === null ? {} : { lora: { filePath: path, scale: 1 } }),
  });
  return { model, checkpoint, spec };
}

/** Starts a reference trainer on the run's checkpoints, exports one sampler checkpoint as a GGUF LoRA, stops it. */
async function exportSamplerAdapter(runDir: string, gguf: string, samplerPath: string, target: string): Promise<string> {
  const python = join(REFERENCE_TRAINER_DIR, ".venv/bin/python");
  if (!existsSync(python)) throw new ConfigError(`exporting a checkpoint's adapter needs the reference trainer's virtualenv (${python}); run ./scripts/setup.sh without ENVFORGE_SKIP_TRAINER`);
  // the trainer reads checkpoints from <its run dir>/trainer-checkpoints: point that at the run's
  const scratch = resolve(runDir, "eval-trainer");
  mkdirSync(scratch, { recursive: true });
  mkdirSync(resolve(runDir, "eval-adapters"), { recursive: true });
  const link = join(scratch, "trainer-checkpoints");
  if (!existsSync(link)) symlinkSync(resolve(runDir, "trainer-checkpoints"), link);
  const state = await startReferenceTrainer({ runDir: scratch, model: gguf, port: await freePort(), python });
  try {
    await exportGgufLora(new TinkerHttp({ baseUrl: state.url, requestTimeoutMs: 600_000 }), { samplerPath, path: target });
  } finally {
    await stopReferenceTrainer(scratch);
  }
  return target;
}

