import { describe, expect, it } from "vitest";
import type { Datum, Trainer } from "../../spec/index.js";

const DATUM: Datum = { modelInput: [2, 5, 6, 7], targetTokens: [5, 6, 7, 8], logprobs: [0, -4, -4, -4], advantages: [0, 1, -1, 1], mask: [0, 1, 1, 1] };
const ADAM = { learningRate: 1e-4, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 };

/**
 * The {@link Trainer} contract every backend honours: `forwardBackward` reports the
 * datums it received and a loss that is a finite number or null; an empty batch is
 * accepted; `optimStep` returns a policy version that never decreases; `close` resolves.
 * @param open creates a fresh trainer; `changesPolicy` says whether `optimStep` advances the version
 */
export function trainerContract(name: string, open: () => Promise<Trainer>, options: { readonly changesPolicy: boolean }): void {
  describe(`Trainer contract: ${name}`, () => {
    it("accumulates, steps and closes", async () => {
      const trainer = await open();
      const result = await trainer.forwardBackward([DATUM, DATUM], { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 });
      expect(result.datums).toBe(2);
      expect(result.loss === null || Number.isFinite(result.loss)).toBe(true);
      expect((await trainer.forwardBackward([], { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 })).datums).toBe(0);
      const first = await trainer.optimStep(ADAM);
      const second = await trainer.optimStep(ADAM);
      expect(second.policyVersion).toBeGreaterThanOrEqual(first.policyVersion);
      if (options.changesPolicy) expect(second.policyVersion).toBe(first.policyVersion + 1);
      await expect(trainer.close()).resolves.toBeUndefined();
    });
  });
}
