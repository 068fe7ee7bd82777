import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { LlamaCppModel } from "../adapters/llm/index.js";
import { ReferenceTrainerTokenizer, TinkerTrainer, type ConformanceCheck, type TinkerHttp } from "../adapters/trainer/index.js";
import { checkEngineTrainerSync, DEFAULT_SYNC_TOLERANCE, LlamaCppLoraSync } from "../adapters/weight-sync/index.js";
import { PROBE_COMPLETION, PROBE_MESSAGES, probeDatum } from "../core/selfplay/index.js";
import type { Datum, LossConfig } from "../spec/index.js";

/** Options of {@link runEngineSyncConformance}. */
export interface EngineSyncConformanceOptions {
  /** The GGUF file the trainer's base model was loaded from; the engine loads the same file. */
  readonly enginePath: string;
  /** Base model name to create the test run on. @default the file name of `enginePath` */
  readonly baseModel?: string;
  /** Mean absolute engine–trainer difference allowed, nats per token. @default {@link DEFAULT_SYNC_TOLERANCE} */
  readonly tolerance?: number;
  /** Learning rate of the test step (large enough that the move is measurable: about 1 nat/token on the probe for Gemma 3 270M). @default 0.001 */
  readonly learningRate?: number;
}

const LOSS: LossConfig = { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 };

/**
 * The weight-sync checks of `envforge trainer conformance --engine-model` (issue 14, item 4), on
 * a fresh LoRA run of the trainer and the llama.cpp engine on the same GGUF:
 * 1. `engine_sync_after_load`: with the trainer's fresh adapter exported and loaded, the
 *    engine's logprobs of the logprob probe match the trainer's `forward` within `tolerance`;
 * 2. `engine_sync_after_step`: after one Adam step on the probe and the sync it calls for, they
 *    still match;
 * 3. `engine_follows_step`: the engine's logprobs moved by about what the trainer's did (within
 *    half the trainer's own move, which must be measurable), so a sync that leaves the engine on
 *    the old weights, the base model or a wrong scale fails loudly.
 * The trainer must write adapter files where this process reads them (the same machine). The
 * checks build on each other: when one step throws (the engine cannot load the model, the
 * trainer refuses), the checks not reached are replaced by one failed `engine_sync` check naming
 * the error.
 */
export async function runEngineSyncConformance(http: TinkerHttp, options: EngineSyncConformanceOptions): Promise<ConformanceCheck[]> {
  const tolerance = options.tolerance ?? DEFAULT_SYNC_TOLERANCE;
  const folder = mkdtempSync(join(tmpdir(), "envforge-engine-conformance-"));
  const checks: ConformanceCheck[] = [];
  let engine: LlamaCppModel | undefined;
  try {
    const trainer = await TinkerTrainer.create(http, { baseModel: options.baseModel ?? basename(options.enginePath), loraRank: 8, seed: 1 });
    engine = await LlamaCppModel.load({ modelPath: options.enginePath, contextSize: 1024, threads: 1 });
    const tokenizer = new ReferenceTrainerTokenizer(http);
    const probe = probeDatum(await tokenizer.encodeChat(PROBE_MESSAGES), await tokenizer.encodeText(PROBE_COMPLETION));
    const sync = new LlamaCppLoraSync({ http, modelId: trainer.modelId, engine, directory: folder });
    const scored = engine;
    const engineLogprobs = () => scored.tokenLogprobs([probe.modelInput[0] as number, ...probe.targetTokens]);
    const trainerLogprobs = async () => (await trainer.forward([probe], LOSS)).logprobs?.[0] ?? [];

    await sync.sync({ name: "conformance-0", policyVersion: 0 });
    const loaded = await checkEngineTrainerSync(scored, trainer, probe, LOSS, tolerance);
    checks.push({ name: "engine_sync_after_load", passed: loaded.passed, detail: describe(loaded) });
    const engineBefore = await engineLogprobs();
    const trainerBefore = await trainerLogprobs();

    await trainer.forwardBackward([withAdvantage(probe, 1)], LOSS);
    await trainer.optimStep({ learningRate: options.learningRate ?? 0.001, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 });
    await sync.sync({ name: "conformance-1", policyVersion: trainer.policyVersion });
    const stepped = await checkEngineTrainerSync(scored, trainer, probe, LOSS, tolerance);
    checks.push({ name: "engine_sync_after_step", passed: stepped.passed, detail: describe(stepped) });

    // the move over the completion's tokens (the ones the step trained)
    const moveOf = (after: readonly number[], before: readonly number[]) => meanOf(after.flatMap((value, index) => (probe.mask[index] === 1 ? [value - (before[index] as number)] : [])));
    const engineMove = moveOf(await engineLogprobs(), engineBefore);
    const trainerMove = moveOf(await trainerLogprobs(), trainerBefore);
    const measurable = Math.abs(trainerMove) > 0.01;
    const follows = measurable && Math.abs(engineMove - trainerMove) <= 0.5 * Math.abs(trainerMove);
    checks.push({
      name: "engine_follows_step",
      passed: follows,
      detail: `the step moved the probe completion's mean logprob by ${trainerMove.toFixed(4)} nats/token in the trainer and ${engineMove.toFixed(4)} in the engine` + (measurable ? "" : " (the trainer's move is too small to compare)"),
    });
  } catch (error) {
    checks.push({ name: "engine_sync", passed: false, detail: `failed: ${(error as Error).message}` });
  } finally {
    await engine?.close();
    rmSync(folder, { recursive: true, force: true });
  }
  return checks;
}

function describe(result: { readonly meanAbsDifference: number; readonly maxAbsDifference: number; readonly positions: number; readonly tolerance: number }): string {
  return `engine vs trainer on the probe: ${result.meanAbsDifference.toFixed(3)} mean, ${result.maxAbsDifference.toFixed(3)} max |Δ logprob| nats over ${result.positions} positions (tolerance ${result.tolerance})`;
}

function withAdvantage(datum: Datum, advantage: number): Datum {
  return { ...datum, advantages: datum.mask.map((flag) => flag * advantage) };
}

function meanOf(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
