import { ModelRequestError, type Datum, type LossConfig, type Trainer } from "../../spec/index.js";

/** An engine that scores a token sequence ({@link LlamaCppModel.tokenLogprobs} is one). */
export interface TokenScoringEngine {
  /** `log p(tokens[i + 1] | tokens[0..i])` for every i: `tokens.length - 1` entries, natural log. */
  tokenLogprobs(tokens: readonly number[]): Promise<number[]>;
}

/**
 * Default tolerance of {@link checkEngineTrainerSync}: mean absolute difference per token,
 * nats. The base Gemma 3 270M scores 0.067 nats/token apart on llama.cpp (Q4_K) and in the
 * reference trainer (dequantised float32); an adapter loaded at the wrong scale or not at all
 * after training moves the engine by about the adapter's own shift.
 */
export const DEFAULT_SYNC_TOLERANCE = 0.25;

/** What {@link checkEngineTrainerSync} measured. */
export interface SyncCheckResult {
  /** Positions compared (the datum's targets). */
  readonly positions: number;
  /** Mean |engine − trainer| logprob per position, nats. */
  readonly meanAbsDifference: number;
  /** Largest |engine − trainer| logprob at one position, nats. */
  readonly maxAbsDifference: number;
  /** The tolerance it was held to (mean absolute difference, nats). */
  readonly tolerance: number;
  /** Whether `meanAbsDifference` ≤ `tolerance`. */
  readonly passed: boolean;
}

/**
 * The sync check: scores one fixed sequence (`datum`, e.g. the logprob probe) with the
 * sampling engine and with the trainer's gradient-free `forward`, and compares them position
 * by position. Passing means the engine samples the policy being trained, up to the stated
 * engine–trainer mismatch. A pure measurement: the caller decides what a failure means.
 *
 * @param tolerance mean absolute difference allowed, nats per token. @default {@link DEFAULT_SYNC_TOLERANCE}
 * @throws ModelRequestError when the engine or the trainer returns a number of logprobs other than the datum's targets
 * @throws TrainerUnavailableError / TrainerRequestError from the trainer, ModelRequestError from the engine
 */
export async function checkEngineTrainerSync(
  engine: TokenScoringEngine,
  trainer: Required<Pick<Trainer, "forward">>,
  datum: Datum,
  loss: LossConfig,
  tolerance: number = DEFAULT_SYNC_TOLERANCE,
): Promise<SyncCheckResult> {
  const first = datum.modelInput[0];
  if (first === undefined) throw new ModelRequestError("the sync check needs a datum with tokens");
  const tokens = [first, ...datum.targetTokens];
  const engineLogprobs = await engine.tokenLogprobs(tokens);
  const trainerLogprobs = (await trainer.forward([datum], loss)).logprobs?.[0] ?? [];
  const positions = datum.targetTokens.length;
  if (engineLogprobs.length !== positions || trainerLogprobs.length !== positions) {
    throw new ModelRequestError(`the sync check got ${engineLogprobs.length} engine and ${trainerLogprobs.length} trainer logprobs for ${positions} positions`);
  }
  const differences = engineLogprobs.map((value, index) => Math.abs(value - (trainerLogprobs[index] as number)));
  const meanAbsDifference = differences.reduce((sum, value) => sum + value, 0) / positions;
  return { positions, meanAbsDifference, maxAbsDifference: Math.max(...differences), tolerance, passed: meanAbsDifference <= tolerance };
}
