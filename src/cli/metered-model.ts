import type { ChatMessage, GenerateOptions, Generation, LanguageModel } from "../spec/index.js";

/**
 * A {@link LanguageModel} wrapper for benchmarks: counts completion tokens (the generation's
 * token ids, else text length / 4) and seconds inside `generate` (summed over calls, so
 * concurrent calls overlap), and keeps every generation and its options when `record` is set.
 */
export class MeteredModel implements LanguageModel {
  tokens = 0;
  seconds = 0;
  /** Every generation with the messages and options it was asked with, in completion order (only with `record`). */
  readonly generations: Array<{ readonly generation: Generation; readonly messages: readonly ChatMessage[]; readonly options: GenerateOptions }> = [];

  constructor(
    private readonly inner: LanguageModel,
    private readonly record = false,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const started = performance.now();
    try {
      const generation = await this.inner.generate(messages, options);
      this.tokens += generation.tokens?.length ?? Math.ceil(generation.text.length / 4);
      if (this.record) this.generations.push({ generation, messages, options });
      return generation;
    } finally {
      this.seconds += (performance.now() - started) / 1000;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
