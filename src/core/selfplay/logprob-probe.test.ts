import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../adapters/store/index.js";
import type { Datum, ForwardBackwardResult, Trainer } from "../../spec/index.js";
import { ensureProbeBaseline, measureProbe, PROBE_BASELINE_META, probeDatum } from "./logprob-probe.js";

const LOSS = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;

/** Control-flow fake: the learner's logprob of every target is `level` (raised by the test). */
function fakeTrainer(): Trainer & { level: number } {
  return {
    name: "fake",
    policyVersion: 0,
    level: -2,
    async forward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
      return { datums: datums.length, loss: null, logprobs: datums.map((datum) => datum.targetTokens.map(() => this.level)) };
    },
    async forwardBackward(datums) {
      return { datums: datums.length, loss: null };
    },
    async optimStep() {
      return { policyVersion: 1 };
    },
    async close() {},
  };
}

describe("logprob probe", () => {
  it("masks exactly the completion tokens", () => {
    expect(probeDatum([1, 2, 3], [4, 5])).toEqual({ modelInput: [1, 2, 3, 4], targetTokens: [2, 3, 4, 5], logprobs: [0, 0, 0, 0], advantages: [0, 0, 0, 0], mask: [0, 0, 1, 1] });
    expect(() => probeDatum([], [4])).toThrow(/probe needs/);
  });

  it("keeps the first baseline and reports the change since it", async () => {
    const store = new SqliteStore(":memory:");
    const trainer = fakeTrainer();
    const probe = probeDatum([1, 2], [3, 4, 5]);
    expect(await measureProbe(trainer, probe, LOSS, store)).toBeNull();
    expect(await ensureProbeBaseline(trainer, probe, LOSS, store)).toBe(-2);
    trainer.level = -1.5;
    expect(await ensureProbeBaseline(trainer, probe, LOSS, store)).toBe(-2);
    expect(await measureProbe(trainer, probe, LOSS, store)).toEqual({ policyVersion: 0, meanLogprob: -1.5, deltaFromStart: 0.5, tokens: 3 });
    expect(store.getMeta(PROBE_BASELINE_META)).toBe(-2);
    store.close();
  });

  it("is null on a trainer without forward (noop)", async () => {
    const store = new SqliteStore(":memory:");
    const { forward: _forward, ...noop } = fakeTrainer();
    expect(await ensureProbeBaseline(noop, probeDatum([1], [2]), LOSS, store)).toBeNull();
    store.close();
  });
});
