import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../adapters/store/index.js";
import type { AdamParams, Datum, ForwardBackwardResult, SamplingClient, TrainingClient } from "../../spec/index.js";
import { CheckpointingTrainer } from "./training-checkpoints.js";

// Control-flow tests of the metrics line with a FAKE training client (it trains nothing): the
// client answers each forwardBackward with the clip fraction the test gives it.

class MetricsClient implements TrainingClient {
  readonly name = "fake";
  policyVersion = 0;
  clipFractions: number[] = [];
  constructor(readonly inPassImportanceCorrection?: boolean) {}
  async forward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    return { datums: datums.length, loss: 0, logprobs: datums.map((entry) => entry.logprobs) };
  }
  async forwardBackward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    return { datums: datums.length, loss: 0, metrics: { "clip_fraction:mean": this.clipFractions.shift() ?? 0 } };
  }
  async optimStep(_adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    this.policyVersion += 1;
    return { policyVersion: this.policyVersion };
  }
  async saveWeightsForSampler(name: string): Promise<SamplingClient> {
    return { modelPath: `fake://${name}`, sample: async () => ({ sequences: [], promptLogprobs: null }) };
  }
  async saveState(name: string): Promise<string> {
    return `fake://state/${name}`;
  }
  async loadState(_path: string): Promise<void> {}
  async close(): Promise<void> {}
}

const datum = (policyTokens: number): Datum => ({
  modelInput: [1, ...Array.from({ length: policyTokens }, () => 5)],
  targetTokens: [5, ...Array.from({ length: policyTokens }, () => 6)],
  logprobs: Array.from({ length: policyTokens + 1 }, () => -1),
  advantages: [0, ...Array.from({ length: policyTokens }, () => 1)],
  mask: [0, ...Array.from({ length: policyTokens }, () => 1)],
});

describe("CheckpointingTrainer metrics", () => {
  it("weighs each forwardBackward call's mean metrics by its policy tokens", async () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-checkpoints-"));
    const store = new SqliteStore(":memory:");
    const client = new MetricsClient(true);
    const trainer = new CheckpointingTrainer(client, { store, metricsPath: join(folder, "metrics.jsonl"), checkpointEvery: 10 });
    expect(trainer.inPassImportanceCorrection).toBe(true);
    client.clipFractions = [0, 1];
    // 10 on-policy datums of 1 policy token with nothing clipped, then 1 off-policy datum of 1 token all clipped
    await trainer.forwardBackward(Array.from({ length: 10 }, () => datum(1)), { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 });
    await trainer.forwardBackward([datum(1)], { kind: "ppo", clipLow: 0.2, clipHigh: 0.28, importanceCap: 2 });
    await trainer.optimStep({ learningRate: 1e-5, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 });
    const line = JSON.parse(readFileSync(join(folder, "metrics.jsonl"), "utf8").trim()) as { clipFraction: number; datums: number };
    expect(line.datums).toBe(11);
    expect(line.clipFraction).toBeCloseTo(1 / 11, 10);
    store.close();
  });

  it("says no in-pass correction when the inner client does not announce it", () => {
    const trainer = new CheckpointingTrainer(new MetricsClient(), { store: new SqliteStore(":memory:"), metricsPath: join(mkdtempSync(join(tmpdir(), "envforge-checkpoints-")), "m.jsonl"), checkpointEvery: 1 });
    expect(trainer.inPassImportanceCorrection).toBe(false);
  });
});
