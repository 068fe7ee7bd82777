import type { AdamParams, Datum, ForwardBackwardResult, LossConfig, Trainer } from "../../spec/index.js";

/**
 * A trainer that computes nothing and never changes the policy. It counts the
 * datums it was given so reports show what a real trainer would have received.
 * This is the walking skeleton's stand-in; the Tinker client replaces it.
 */
export class NoopTrainer implements Trainer {
  readonly name = "noop";
  /** Always 0: nothing is ever trained. */
  readonly policyVersion = 0;
  /** Datums received over the trainer's lifetime. */
  datumsSeen = 0;

  async forwardBackward(datums: readonly Datum[], _loss: LossConfig): Promise<ForwardBackwardResult> {
    this.datumsSeen += datums.length;
    return { datums: datums.length, loss: null };
  }

  /** Does not update anything; the policy version stays 0. */
  async optimStep(_adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    return { policyVersion: this.policyVersion };
  }

  async close(): Promise<void> {}
}
