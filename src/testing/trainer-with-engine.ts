import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlamaCppModel } from "../adapters/llm/index.js";
import { startReferenceTrainer, stopReferenceTrainer, TinkerHttp, TinkerTrainer } from "../adapters/trainer/index.js";
import { freePort } from "./free-port.js";

/** A real reference trainer (one LoRA model) and a llama.cpp engine on the same GGUF, for weight-sync tests. */
export interface TrainerWithEngine {
  /** The trainer's run folder (temporary; adapters may be written there). */
  readonly runDir: string;
  readonly http: TinkerHttp;
  readonly trainer: TinkerTrainer;
  readonly engine: LlamaCppModel;
  /** Closes the engine, stops the trainer and removes the folder. */
  close(): Promise<void>;
}

/**
 * Starts the reference trainer on `model` (1 thread, LoRA rank 8, seed 1) in a new
 * temporary folder and loads the same GGUF into llama.cpp (1 thread).
 *
 * @param prefix name prefix of the temporary folder
 * @param contextSize the engine's context window, tokens
 */
export async function startTrainerWithEngine(model: string, prefix: string, contextSize: number): Promise<TrainerWithEngine> {
  const runDir = mkdtempSync(join(tmpdir(), prefix));
  let engine: LlamaCppModel | undefined;
  try {
    const state = await startReferenceTrainer({ runDir, model, port: await freePort(), threads: 1 });
    const http = new TinkerHttp({ baseUrl: state.url });
    const trainer = await TinkerTrainer.create(http, { baseModel: "gemma-3-270m-q4_k_m.gguf", loraRank: 8, seed: 1 });
    engine = await LlamaCppModel.load({ modelPath: model, contextSize, threads: 1 });
    const loaded = engine;
    return {
      runDir,
      http,
      trainer,
      engine: loaded,
      async close() {
        await loaded.close();
        await stopReferenceTrainer(runDir);
        rmSync(runDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await engine?.close();
    await stopReferenceTrainer(runDir);
    rmSync(runDir, { recursive: true, force: true });
    throw error;
  }
}
