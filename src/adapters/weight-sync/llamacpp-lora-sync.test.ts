import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, LoraAdapterError, TrainerRequestError, type Datum } from "../../spec/index.js";
import { embeddedModelPath } from "../llm/embedded-model.js";
import { LlamaCppModel } from "../llm/index.js";
import { REFERENCE_TRAINER_DIR, startReferenceTrainer, stopReferenceTrainer, TinkerHttp, TinkerTrainer } from "../trainer/index.js";
import { startTrainerWithEngine, type TrainerWithEngine } from "../../testing/trainer-with-engine.js";
import { LlamaCppLoraSync } from "./llamacpp-lora-sync.js";
import { exportGgufLora } from "./trainer-lora-export.js";

// Runs the real reference trainer on the embedded Gemma 3 270M GGUF (its first load converts the
// file into <file>.hf/, about 100 s; later loads take seconds) and the real llama.cpp engine.
const MODEL = embeddedModelPath();
const PYTHON = join(REFERENCE_TRAINER_DIR, ".venv/bin/python");
const TEXT = "<bos>The capital of France is Paris. The capital of Italy is Rome, and the capital of Spain is Madrid.";
const ADAM = { learningRate: 1e-3, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 };
const LOSS = { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 } as const;

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const meanAbsDiff = (a: readonly number[], b: readonly number[]) => mean(a.map((value, index) => Math.abs(value - (b[index] as number))));
const minus = (a: readonly number[], b: readonly number[]) => a.map((value, index) => value - (b[index] as number));

/** Adapters for other base models, written by the trainer's own exporter from tiny random models. */
function writeForeignAdapters(directory: string): { readonly qwen2: string; readonly smallGemma3: string } {
  const script = `
import sys, torch
from peft import LoraConfig, get_peft_model, get_peft_model_state_dict
from transformers import Gemma3ForCausalLM, Gemma3TextConfig, Qwen2Config, Qwen2ForCausalLM
from envforge_trainer.gguf_lora import write_gguf_lora
torch.manual_seed(0)
for model, path in ((Qwen2ForCausalLM(Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)), sys.argv[1]),
                    (Gemma3ForCausalLM(Gemma3TextConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=16)), sys.argv[2])):
    peft = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"))
    write_gguf_lora(get_peft_model_state_dict(peft), model.config, 2.0, path)
`;
  const paths = { qwen2: join(directory, "tiny-qwen2.gguf"), smallGemma3: join(directory, "tiny-gemma3.gguf") };
  const result = spawnSync(PYTHON, ["-c", script, paths.qwen2, paths.smallGemma3], { cwd: REFERENCE_TRAINER_DIR, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) throw new Error(`could not write foreign adapters: ${result.stderr}`);
  return paths;
}

describe("llama.cpp LoRA weight sync settings", () => {
  const untouched = {} as TinkerHttp;
  const engine = { setAdapter: async () => {} };

  it("refuses a relative folder, a bad keep and a version name that is not a file name", async () => {
    expect(() => new LlamaCppLoraSync({ http: untouched, modelId: "m", engine, directory: "adapters" })).toThrowError(ConfigError);
    expect(() => new LlamaCppLoraSync({ http: untouched, modelId: "m", engine, directory: "/tmp", keep: 0 })).toThrowError(ConfigError);
    const sync = new LlamaCppLoraSync({ http: untouched, modelId: "m", engine, directory: "/tmp" });
    await expect(sync.sync({ name: "../step-1", policyVersion: 1 })).rejects.toThrowError(ConfigError);
  });
});

describe.skipIf(!existsSync(MODEL) || !existsSync(PYTHON))("llama.cpp LoRA weight sync from the reference trainer (Gemma 3 270M)", () => {
  let fixture: TrainerWithEngine | undefined;
  let runDir: string;
  let engine: LlamaCppModel;
  let http: TinkerHttp;
  let trainer: TinkerTrainer;
  let tokens: number[];
  let datum: Datum;

  beforeAll(async () => {
    fixture = await startTrainerWithEngine(MODEL, "envforge-lora-sync-", 256);
    ({ runDir, http, trainer, engine } = fixture);
    tokens = engine.tokenize(TEXT);
    const size = tokens.length - 1;
    datum = {
      modelInput: tokens.slice(0, -1),
      targetTokens: tokens.slice(1),
      logprobs: new Array(size).fill(0),
      advantages: new Array(size).fill(1),
      mask: new Array(size).fill(1),
    };
  }, 400_000);

  afterAll(() => fixture?.close());

  it("a trained adapter changes the engine's logprobs as it changes the trainer's (the sync check)", async () => {
    const baseEngine = await engine.tokenLogprobs(tokens);
    const baseTrainer = [...((await trainer.forward([datum], LOSS)).logprobs?.[0] ?? [])];
    expect(baseTrainer).toHaveLength(tokens.length - 1);

    // one real training step: a fresh adapter has B = 0; Adam moves every B entry by about the learning rate
    await trainer.forwardBackward([{ ...datum, logprobs: baseTrainer }], LOSS);
    await trainer.optimStep(ADAM);
    const trainedTrainer = [...((await trainer.forward([datum], LOSS)).logprobs?.[0] ?? [])];

    const sync = new LlamaCppLoraSync({ http, modelId: trainer.modelId, engine, directory: runDir, keep: 1 });
    const result = await sync.sync({ name: "step-1", policyVersion: 1 });
    expect(engine.adapter?.filePath).toBe(join(runDir, "step-1.gguf"));
    const trainedEngine = await engine.tokenLogprobs(tokens);

    const trainerShift = minus(trainedTrainer, baseTrainer);
    const engineShift = minus(trainedEngine, baseEngine);
    const report = {
      tokens: tokens.length,
      exportSeconds: result.exportMs / 1000,
      loadSeconds: result.loadMs / 1000,
      meanAbsTrainerShift: mean(trainerShift.map(Math.abs)),
      meanAbsEngineShift: mean(engineShift.map(Math.abs)),
      meanAbsShiftDifference: meanAbsDiff(engineShift, trainerShift),
      meanAbsEngineMinusTrainerBase: meanAbsDiff(baseEngine, baseTrainer),
      meanAbsEngineMinusTrainerAdapter: meanAbsDiff(trainedEngine, trainedTrainer),
      maxAbsEngineMinusTrainerAdapter: Math.max(...minus(trainedEngine, trainedTrainer).map(Math.abs)),
    };
    console.log(`weight sync (Gemma 3 270M, rank 8): ${JSON.stringify(report, null, 1)}`);

    // the adapter really changes what the engine computes
    expect(report.meanAbsEngineShift).toBeGreaterThan(0.1);
    // sync check: the engine's logprobs move as the trainer's do, token by token, within 10% of the
    // trainer's mean shift (what remains is the base model's own engine–trainer gap: llama.cpp's Q4_K
    // dot products against torch's dequantised float32, which the adapter's shift rides on)
    expect(report.meanAbsShiftDifference).toBeLessThan(0.1 * report.meanAbsTrainerShift);

    // the check tells a wrongly scaled adapter apart: at twice or half the scale it fails
    for (const scale of [2, 0.5]) {
      await engine.setAdapter({ filePath: result.location, scale });
      const shifted = minus(await engine.tokenLogprobs(tokens), baseEngine);
      expect(meanAbsDiff(shifted, trainerShift)).toBeGreaterThan(0.1 * report.meanAbsTrainerShift);
    }

    // the null adapter is the bare base model again
    await engine.setAdapter(null);
    expect(engine.adapter).toBeNull();
    const again = await engine.tokenLogprobs(tokens);
    expect(meanAbsDiff(again, baseEngine)).toBeLessThan(1e-4);

    // a second sync (another file: the loaded model is kept, only the context is reopened) with keep = 1 leaves one adapter file
    const second = await sync.sync({ name: "step-2", policyVersion: 2 });
    console.log(`second sync: export ${(second.exportMs / 1000).toFixed(3)} s, load ${(second.loadMs / 1000).toFixed(3)} s`);
    expect(existsSync(join(runDir, "step-1.gguf"))).toBe(false);
    expect(existsSync(join(runDir, "step-2.gguf"))).toBe(true);

    // another step exported over the same file: the engine must not apply llama.cpp's cached copy of that path
    await trainer.forwardBackward([{ ...datum, logprobs: trainedTrainer }], LOSS);
    await trainer.optimStep(ADAM);
    const retrainedTrainer = [...((await trainer.forward([datum], LOSS)).logprobs?.[0] ?? [])];
    const rewritten = await sync.sync({ name: "step-2", policyVersion: 3 });
    console.log(`same-path sync (model reopened): export ${(rewritten.exportMs / 1000).toFixed(3)} s, load ${(rewritten.loadMs / 1000).toFixed(3)} s`);
    const retrainedEngine = await engine.tokenLogprobs(tokens);
    const retrainedShift = minus(retrainedTrainer, baseTrainer);
    expect(meanAbsDiff(retrainedTrainer, trainedTrainer)).toBeGreaterThan(0.1);
    expect(meanAbsDiff(minus(retrainedEngine, baseEngine), retrainedShift)).toBeLessThan(0.1 * mean(retrainedShift.map(Math.abs)));
  }, 300_000);

  it("refuses missing, truncated, non-adapter and foreign adapters with the cause named, keeping the loaded one", async () => {
    const good = join(runDir, "good.gguf");
    await exportGgufLora(http, { modelId: trainer.modelId, path: good });
    await engine.setAdapter({ filePath: good });
    const before = await engine.tokenLogprobs(tokens.slice(0, 6));

    const refusal = async (filePath: string) => engine.setAdapter({ filePath }).then(() => null, (error: unknown) => error);
    const missing = await refusal(join(runDir, "none.gguf"));
    expect(missing).toBeInstanceOf(LoraAdapterError);
    expect(missing).toMatchObject({ problem: "missing", code: "lora_adapter_invalid" });

    const truncated = join(runDir, "truncated.gguf");
    const bytes = readFileSync(good);
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await refusal(truncated)).toMatchObject({ problem: "truncated", message: expect.stringMatching(/truncated: its tensors need \d+ bytes/) });
    writeFileSync(truncated, bytes.subarray(0, 64));
    expect(await refusal(truncated)).toMatchObject({ problem: "truncated" });

    expect(await refusal(MODEL)).toMatchObject({ problem: "not_lora", message: expect.stringMatching(/not a GGUF LoRA adapter/) });

    const foreign = writeForeignAdapters(runDir);
    expect(await refusal(foreign.qwen2)).toMatchObject({ problem: "base_mismatch", message: expect.stringMatching(/architecture is qwen2, the loaded model's is gemma3/) });
    expect(await refusal(foreign.smallGemma3)).toMatchObject({ problem: "base_mismatch", message: expect.stringMatching(/blk\.0\.\w+\.weight is \d+→\d+ in the loaded model/) });

    // llama.cpp itself refuses the foreign adapters too (only with a generic message): the checks agree with it
    const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.disabled });
    const bare = await llama.loadModel({ modelPath: MODEL });
    try {
      for (const filePath of [foreign.qwen2, foreign.smallGemma3]) {
        await expect(bare.createContext({ contextSize: 64, threads: 1, lora: { adapters: [{ filePath }] } })).rejects.toThrow(/Failed to initialize LoRA adapter/);
      }
    } finally {
      await bare.dispose();
    }

    // every refusal left the good adapter loaded
    expect(engine.adapter?.filePath).toBe(good);
    expect(await engine.tokenLogprobs(tokens.slice(0, 6))).toEqual(before);
  }, 300_000);

  it("maps the trainer's refusals to typed errors", async () => {
    const relative = await exportGgufLora(http, { modelId: trainer.modelId, path: "relative.gguf" }).catch((error: unknown) => error);
    expect(relative).toBeInstanceOf(TrainerRequestError);
    expect(relative).toMatchObject({ status: 400, category: "user", message: expect.stringMatching(/absolute path/) });
    const unknown = await exportGgufLora(http, { modelId: "model_nope", path: join(runDir, "x.gguf") }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404, retryable: false });
  });
});
