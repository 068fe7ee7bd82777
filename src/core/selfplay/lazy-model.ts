import { EnvforgeError, ModelUnavailableError, type ChatMessage, type GenerateOptions, type Generation, type LanguageModel } from "../../spec/index.js";

/**
 * Opens the real model on first use. A failed open is remembered and rethrown
 * on every call (a retryable failure is tried again next call), so a missing
 * model file or an unreachable server turns into per-call failures that the
 * round records, instead of stopping the run.
 */
export class LazyModel implements LanguageModel {
  private model: Promise<LanguageModel> | null = null;
  /** Generate calls made. */
  calls = 0;
  /** Generate calls that returned a generation. */
  successes = 0;

  /** @param open opens the model; may throw {@link ModelUnavailableError} */
  constructor(
    readonly id: string,
    private readonly open: () => Promise<LanguageModel>,
  ) {}

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    this.calls += 1;
    this.model ??= this.open();
    let model: LanguageModel;
    try {
      model = await this.model;
    } catch (error) {
      if (!(error instanceof EnvforgeError) || error.retryable) this.model = null;
      throw error instanceof EnvforgeError ? error : new ModelUnavailableError((error as Error).message, { cause: error });
    }
    const generation = await model.generate(messages, options);
    this.successes += 1;
    return generation;
  }

  async close(): Promise<void> {
    if (this.model === null) return;
    try {
      await (await this.model).close();
    } catch {
      // the model never opened; nothing to close
    }
  }
}
