import type { AdamParams, ChatMessage, Datum, ForwardBackwardResult, GenerateOptions, Generation, LanguageModel, SampleResult, SamplingClient, TrainingClient } from "../spec/index.js";

/**
 * ZERO-LATENCY FAKE policy for `envforge bench training` only: answers at once with
 * a few fixed actions in turn (so some episodes win and groups keep their datums),
 * "prompt tokens" are the prompt's character codes, and every token's logprob is −1.
 * It models nothing; it exists so the benchmark measures envforge's own time.
 */
export class ZeroLatencyPolicy implements LanguageModel {
  readonly id = "zero-latency-fake";
  private turn = 0;
  private static readonly ACTIONS = ["1", "2", "3", "5", "left", "right", "yes", "no", "42", "a"];

  async generate(messages: readonly ChatMessage[], _options: GenerateOptions): Promise<Generation> {
    const prompt = messages.map((message) => message.content).join("\n");
    const promptTokens = Array.from(prompt, (character) => character.charCodeAt(0) % 1024);
    const text = messages[0]?.content.startsWith("You are the Designer") ? "no design" : (ZeroLatencyPolicy.ACTIONS[this.turn++ % ZeroLatencyPolicy.ACTIONS.length] as string);
    const tokens = Array.from(text, (character) => character.charCodeAt(0));
    return { text, tokens, logprobs: tokens.map(() => -1), promptTokens, finishReason: "stop" };
  }

  async close(): Promise<void> {}
}

/**
 * ZERO-LATENCY FAKE training client for `envforge bench training` only: every
 * operation returns at once (forward logprobs equal the sampling logprobs, loss 0,
 * publishing and checkpoints are names). It trains nothing.
 */
export class ZeroLatencyTrainingClient implements TrainingClient {
  readonly name = "zero-latency-fake";
  policyVersion = 0;

  async forward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    return { datums: datums.length, loss: 0, logprobs: datums.map((datum) => datum.logprobs) };
  }

  async forwardBackward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    return { datums: datums.length, loss: 0, metrics: { "loss:sum": 0 } };
  }

  async optimStep(_adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    this.policyVersion += 1;
    return { policyVersion: this.policyVersion };
  }

  async saveWeightsForSampler(name: string): Promise<SamplingClient> {
    return { modelPath: `fake://${name}`, sample: async (): Promise<SampleResult> => ({ sequences: [], promptLogprobs: null }) };
  }

  async saveState(name: string): Promise<string> {
    return `fake://state/${name}`;
  }

  async loadState(_path: string): Promise<void> {}

  async close(): Promise<void> {}
}
