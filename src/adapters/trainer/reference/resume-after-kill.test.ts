import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CheckpointingTrainer, restoreTrainerCheckpoint, TRAINER_CHECKPOINT_META, type TrainerStepMetrics } from "../../../core/selfplay/index.js";
import type { Datum } from "../../../spec/index.js";
import { SqliteStore } from "../../store/index.js";
import { TinkerHttp } from "../tinker/tinker-http.js";
import { TinkerTrainer } from "../tinker/tinker-trainer.js";
import { startReferenceTrainer, stopReferenceTrainer } from "./reference-trainer-process.js";
import { freePort } from "../../../testing/free-port.js";

const LOSS = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;
const ADAM = { learningRate: 0.02, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 };
const DATUM: Datum = { modelInput: [2, 5, 6, 7], targetTokens: [5, 6, 7, 8], logprobs: [0, -4, -4, -4], advantages: [0, 1, 1, 1], mask: [0, 1, 1, 1] };

/**
 * Checkpoints every 2 steps against the real reference trainer (tiny random model),
 * SIGKILLs the trainer after step 3, restarts it and restores: the policy is the one
 * of step 2 (the last checkpoint), and the metrics file has one line per step.
 */
describe("training checkpoints survive SIGKILL of the trainer", () => {
  const runDir = mkdtempSync(join(tmpdir(), "envforge-resume-"));
  afterAll(async () => {
    await stopReferenceTrainer(runDir);
    rmSync(runDir, { recursive: true, force: true });
  });

  it("resumes from the last checkpoint", async () => {
    const store = new SqliteStore(join(runDir, "envforge.db"));
    const metricsPath = join(runDir, "metrics.jsonl");
    const port = await freePort();
    let state = await startReferenceTrainer({ runDir, model: "tiny-random", port, threads: 1, startTimeoutMs: 110_000 });
    const first = await TinkerTrainer.create(new TinkerHttp({ baseUrl: state.url }), { baseModel: "tiny-random", loraRank: 4, seed: 3 });
    const trainer = new CheckpointingTrainer(first, { store, metricsPath, checkpointEvery: 2 });
    let atCheckpoint: readonly number[] = [];
    for (let step = 1; step <= 3; step += 1) {
      await trainer.forwardBackward([DATUM], LOSS);
      await trainer.optimStep(ADAM);
      if (step === 2) atCheckpoint = (await first.forward([DATUM], LOSS)).logprobs?.[0] ?? [];
    }
    const afterThree = (await first.forward([DATUM], LOSS)).logprobs?.[0] ?? [];
    expect(afterThree).not.toEqual(atCheckpoint);
    process.kill(state.pid, "SIGKILL");

    state = await startReferenceTrainer({ runDir, model: "tiny-random", port, threads: 1, startTimeoutMs: 110_000 });
    const fresh = await TinkerTrainer.create(new TinkerHttp({ baseUrl: state.url }), { baseModel: "tiny-random", loraRank: 4, seed: 9 });
    const restored = await restoreTrainerCheckpoint(fresh, store);
    expect(restored?.policyVersion).toBe(2);
    expect((await fresh.forward([DATUM], LOSS)).logprobs?.[0]).toEqual(atCheckpoint);
    expect(store.getMeta(TRAINER_CHECKPOINT_META)).toMatchObject({ policyVersion: 2 });

    const lines = readFileSync(metricsPath, "utf8").trim().split("\n").map((line) => JSON.parse(line) as TrainerStepMetrics);
    expect(lines.map((line) => [line.policyVersion, line.checkpoint !== null])).toEqual([[1, false], [2, true], [3, false]]);
    expect(lines[0]?.tokens).toBe(4);
    expect(lines[0]?.loss).toBeTypeOf("number");
    store.close();
  });
});
