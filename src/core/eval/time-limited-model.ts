import { ModelRequestError, type ChatMessage, type GenerateOptions, type Generation, type LanguageModel } from "../../spec/index.js";

/** Message prefix of the error {@link timeLimitedModel} raises; {@link isModelTimeout} recognises it by class and flag, not text. */
const TIMEOUT_MESSAGE = "the model did not answer within";

/** A generation that ran past its time limit (a {@link ModelRequestError}, retryable). */
export class ModelTimeoutError extends ModelRequestError {
  /** @param timeoutMs the limit, milliseconds */
  constructor(readonly timeoutMs: number) {
    super(`${TIMEOUT_MESSAGE} ${timeoutMs} ms`, { retryable: true });
  }
}

/** Whether `error` is the time-out of a {@link timeLimitedModel}. */
export function isModelTimeout(error: unknown): error is ModelTimeoutError {
  return error instanceof ModelTimeoutError;
}

/**
 * `model` with a limit on every generation: the request is aborted through `signal` at
 * `timeoutMs`, and the call rejects with {@link ModelTimeoutError} then even when the provider
 * ignores the signal.
 *
 * @param timeoutMs milliseconds per generation, at least 1
 */
export function timeLimitedModel(model: LanguageModel, timeoutMs: number): LanguageModel {
  return {
    id: model.id,
    async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new ModelTimeoutError(timeoutMs));
        }, timeoutMs);
      });
      const signal = options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
      const generation = model.generate(messages, { ...options, signal });
      // a provider that rejects after the abort must not leave an unhandled rejection behind
      generation.catch(() => undefined);
      try {
        return await Promise.race([generation, expired]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => model.close(),
  };
}
