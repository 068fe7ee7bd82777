import { describe, expect, it } from "vitest";
import { benchTrainingCommand, type TrainingBenchReport } from "./bench-training-command.js";

// Runs the benchmark's orchestrator-only part (zero-latency fake policy and trainer,
// real sandbox and store) and checks what it reports; no timing is asserted.
describe("envforge bench training", () => {
  it("reports seconds per step of the quick-start rounds with the zero-latency fakes", async () => {
    let printed = "";
    expect(await benchTrainingCommand({ json: true }, (text) => (printed += text))).toBe(0);
    const report = JSON.parse(printed) as TrainingBenchReport;
    expect(report.config).toEqual({ rounds: 2, environments: 1, plays: 4, maxTurns: 3, designs: 2 });
    expect(report.orchestrator.secondsPerStep).toHaveLength(2);
    expect(report.orchestrator.phaseSeconds.every((phases) => phases != null && phases.solver >= 0 && phases.training >= 0)).toBe(true);
    expect(report.orchestrator.secondsPerStep.every((value) => value >= 0)).toBe(true);
    // the synthetic batch: 1 environment × 2 hint conditions × 4 plays, rewards 0/1 → every group kept, one datum per episode
    expect(report.syntheticStep.datums).toBe(8);
    expect(report.syntheticStep.seconds).toBeGreaterThan(0);
    expect(report.real).toBeNull();
    expect(report.overheadFraction).toBeNull();
  }, 120_000);
});
