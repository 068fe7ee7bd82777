import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { packageId, reject, type AdamParams, type Datum, type DesignRecord, type EpisodeRecord, type ForwardBackwardResult, type LossConfig, type Trainer } from "../../spec/index.js";
import { runTrainingStep } from "./training-step.js";

// Control-flow tests of the training step with hand-made records and a recording
// in-memory trainer (no model, no backend): which datums go to the trainer when.

/** Records batches; its `forward` answers learner logprobs = sampling logprob + ln 3 (ratio 3). */
class RecordingTrainer implements Trainer {
  readonly name = "recording";
  policyVersion = 0;
  readonly batches: Datum[][] = [];
  forwards = 0;
  async forward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    this.forwards += 1;
    return { datums: datums.length, loss: null, logprobs: datums.map((datum) => datum.logprobs.map((value, index) => (datum.mask[index] === 1 ? value + Math.log(3) : 0))) };
  }
  async forwardBackward(datums: readonly Datum[]): Promise<ForwardBackwardResult> {
    this.batches.push([...datums]);
    return { datums: datums.length, loss: 0 };
  }
  async optimStep(_adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    this.policyVersion += 1;
    return { policyVersion: this.policyVersion };
  }
  async close(): Promise<void> {}
}

/**
 * A backend that corrects off-policy datums inside forwardBackward (LossConfig.importanceCap): it
 * has no `forward`; forwardBackward records each call's datums and loss and answers learner
 * logprobs = sampling logprob + ln 3 (ratio 3), as the reference trainer answers π_old.
 */
class InPassTrainer implements Trainer {
  readonly name = "in-pass";
  readonly inPassImportanceCorrection = true;
  policyVersion = 0;
  readonly calls: { datums: Datum[]; loss: LossConfig }[] = [];
  async forwardBackward(datums: readonly Datum[], loss: LossConfig): Promise<ForwardBackwardResult> {
    this.calls.push({ datums: [...datums], loss });
    return { datums: datums.length, loss: 0, logprobs: datums.map((datum) => datum.logprobs.map((value, index) => (datum.mask[index] === 1 ? value + Math.log(3) : 0))) };
  }
  async optimStep(_adam: AdamParams): Promise<{ readonly policyVersion: number }> {
    this.policyVersion += 1;
    return { policyVersion: this.policyVersion };
  }
  async close(): Promise<void> {}
}

const pkg = samplePackage(1);
const memory = [{ id: packageId(pkg), package: pkg, round: null, scores: null }];
const config = parseConfig({ schedule: { designerEvery: 1, designerDelay: 1 } });

function episode(reward: number, withTokens = true): EpisodeRecord {
  const turn = { action: "42", observation: "", reward, ...(withTokens ? { promptTokens: [2, 10, 11], actionTokens: [40, 41], actionLogprobs: [-0.5, -0.25] } : {}) };
  return { round: 1, environmentId: memory[0]!.id, role: "solver", hint: false, policyVersion: 0, episode: { seed: reward, initialObservation: "q", turns: [turn], return: reward, won: reward === 1, terminated: true, truncated: false } };
}
function design(index: number, gate: "parse" | "static", reward: number): DesignRecord {
  return {
    round: 1, index, promptHash: "p", corpusDocumentIds: [], completion: "x", environmentId: null, reward, policyVersion: 0,
    verdicts: [reject(gate, "missing_oracle", "bad design")],
    tokens: { prompt: [2, 20], completion: [30, 31, 32], logprobs: [-1, -1, -1] },
  };
}
const designs = [design(0, "parse", -1), design(1, "static", -0.5)];

describe("runTrainingStep (recording trainer)", () => {
  it("trains the Solver at once and the Designer designerDelay steps later with truncated importance weights", async () => {
    const trainer = new RecordingTrainer();
    const first = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs, memory, config, trainer, pendingDesigner: {} });
    expect(first).toMatchObject({ policyVersion: 1, datums: 2, samplesWithoutTokens: 0, designer: { generated: 2, trained: 0 } });
    expect(trainer.batches[0]?.map((datum) => datum.advantages)).toEqual([[0, 0, 0.5, 0.5], [0, 0, -0.5, -0.5]]);
    expect(Object.keys(first.pendingDesigner)).toEqual(["1"]);
    expect(first.diagnostics.designer).toMatchObject({ datums: 2, samplesWithoutTokens: 0 });

    const second = await runTrainingStep({ step: 2, episodes: [episode(1), episode(0)], designs: [], memory, config, trainer, pendingDesigner: first.pendingDesigner });
    expect(second).toMatchObject({ policyVersion: 2, datums: 4, designer: { generated: 0, trained: 2, importanceWeightMean: 2, importanceTruncatedFraction: 1 } });
    // Designer advantages ∓0.25 (rewards −1, −0.5), times the truncated weight min(3, 2) = 2, on completion tokens only
    expect(trainer.batches[1]?.slice(2).map((datum) => datum.advantages)).toEqual([[0, -0.5, -0.5, -0.5], [0, 0.5, 0.5, 0.5]]);
    expect(trainer.batches[1]?.slice(2).map((datum) => datum.mask)).toEqual([[0, 1, 1, 1], [0, 1, 1, 1]]);
    expect(second.pendingDesigner).toEqual({});
  });

  it("counts samples without tokens and with advantage 0, and sends no datum for them", async () => {
    const trainer = new RecordingTrainer();
    const result = await runTrainingStep({ step: 1, episodes: [episode(1, false), episode(0, false), episode(0.5)], designs: [], memory, config, trainer, pendingDesigner: {} });
    expect(result.datums).toBe(0);
    expect(result.samplesWithoutTokens).toBe(2);
    expect(result.diagnostics.solver).toMatchObject({ samplesWithoutTokens: 2, zeroAdvantageSamples: 1, datums: 0 });
    expect(trainer.batches).toEqual([[]]);
  });

  it("with apply false touches no trainer but schedules the same pending datums", async () => {
    const trainer = new RecordingTrainer();
    const applied = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs, memory, config, trainer: new RecordingTrainer(), pendingDesigner: {} });
    const skipped = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs, memory, config, trainer, pendingDesigner: {}, apply: false });
    expect(trainer.batches).toEqual([]);
    expect(trainer.forwards).toBe(0);
    expect(skipped.pendingDesigner).toEqual(applied.pendingDesigner);
    expect(skipped.policyVersion).toBe(0);
  });

  it("with engineSampled corrects the Solver's datums against the trainer, replaces their logprobs and reports the mismatch", async () => {
    const trainer = new RecordingTrainer();
    const result = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs: [], memory, config, trainer, pendingDesigner: {}, engineSampled: true });
    expect(trainer.forwards).toBe(1);
    // ratio 3 truncated at 2 on both action tokens; the datum now carries the trainer's logprobs
    expect(trainer.batches[0]?.map((datum) => datum.advantages)).toEqual([[0, 0, 1, 1], [0, 0, -1, -1]]);
    expect(trainer.batches[0]?.[0]?.logprobs.slice(2)).toEqual([-0.5 + Math.log(3), -0.25 + Math.log(3)]);
    expect(result.samplerMismatch).toMatchObject({ tokens: 4, truncatedFraction: 1, meanWeight: 2 });
    expect(result.samplerMismatch?.maxRatio).toBeCloseTo(3, 10);
    expect(result.samplerMismatch?.klEstimate).toBeCloseTo(2 - Math.log(3), 10);
  });

  it("without engineSampled sends the Solver's sampling logprobs as they are and reports no mismatch", async () => {
    const trainer = new RecordingTrainer();
    const result = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs: [], memory, config, trainer, pendingDesigner: {} });
    expect(trainer.forwards).toBe(0);
    expect(trainer.batches[0]?.[0]?.logprobs.slice(2)).toEqual([-0.5, -0.25]);
    expect(result.samplerMismatch).toBeNull();
  });

  it("with a backend that corrects in the pass, sends off-policy datums once with importanceCap and reports the same statistics as the two-pass correction", async () => {
    const trainer = new InPassTrainer();
    const first = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs, memory, config, trainer, pendingDesigner: {} });
    // step 1: only the Solver's on-policy datums, in one call without a cap
    expect(trainer.calls.map((call) => [call.datums.length, call.loss.importanceCap])).toEqual([[2, undefined]]);
    const second = await runTrainingStep({ step: 2, episodes: [episode(1), episode(0)], designs: [], memory, config, trainer, pendingDesigner: first.pendingDesigner });
    // step 2: the Solver's datums as they are, then the due Designer datums with the cap C = 2
    expect(trainer.calls.slice(1).map((call) => [call.datums.length, call.loss.importanceCap])).toEqual([[2, undefined], [2, 2]]);
    // the Designer datums keep their sampling logprobs and unweighted advantages ∓0.25: the trainer weighs them
    expect(trainer.calls[2]?.datums.map((datum) => datum.advantages)).toEqual([[0, -0.25, -0.25, -0.25], [0, 0.25, 0.25, 0.25]]);
    expect(trainer.calls[2]?.datums[0]?.logprobs).toEqual([0, -1, -1, -1]);
    // what the two-pass correction reports for the same ratio 3 (first test): weight min(3, 2) = 2 on every token
    expect(second).toMatchObject({ policyVersion: 2, datums: 4, designer: { generated: 0, trained: 2, importanceWeightMean: 2, importanceTruncatedFraction: 1 } });
  });

  it("with a backend that corrects in the pass and engineSampled, sends every datum once with the cap and reports the mismatch", async () => {
    const trainer = new InPassTrainer();
    const result = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs: [], memory, config, trainer, pendingDesigner: {}, engineSampled: true });
    expect(trainer.calls.map((call) => [call.datums.length, call.loss.importanceCap])).toEqual([[2, 2]]);
    expect(trainer.calls[0]?.datums[0]?.logprobs.slice(2)).toEqual([-0.5, -0.25]);
    expect(result.samplerMismatch).toMatchObject({ tokens: 4, truncatedFraction: 1, meanWeight: 2 });
    expect(result.samplerMismatch?.maxRatio).toBeCloseTo(3, 10);
    expect(result.samplerMismatch?.klEstimate).toBeCloseTo(2 - Math.log(3), 10);
  });

  it("takes C from advantages.importanceCap on both paths", async () => {
    const capped = parseConfig({ schedule: { designerEvery: 1, designerDelay: 1 }, advantages: { importanceCap: 1.5 } });
    const twoPass = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs: [], memory, config: capped, trainer: new RecordingTrainer(), pendingDesigner: {}, engineSampled: true });
    const inPassTrainer = new InPassTrainer();
    const inPass = await runTrainingStep({ step: 1, episodes: [episode(1), episode(0)], designs: [], memory, config: capped, trainer: inPassTrainer, pendingDesigner: {}, engineSampled: true });
    expect(twoPass.samplerMismatch?.meanWeight).toBe(1.5);
    expect(inPass.samplerMismatch?.meanWeight).toBe(1.5);
    expect(inPassTrainer.calls[0]?.loss.importanceCap).toBe(1.5);
  });
});
