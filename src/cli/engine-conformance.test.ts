import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath } from "../adapters/llm/embedded-model.js";
import { REFERENCE_TRAINER_DIR, startReferenceTrainer, stopReferenceTrainer, TinkerHttp } from "../adapters/trainer/index.js";
import { freePort } from "../testing/free-port.js";
import { runEngineSyncConformance } from "./engine-conformance.js";

// The real reference trainer on the embedded Gemma 3 270M GGUF and the real llama.cpp engine on the same file.
const MODEL = embeddedModelPath();
const PYTHON = join(REFERENCE_TRAINER_DIR, ".venv/bin/python");

describe.skipIf(!existsSync(MODEL) || !existsSync(PYTHON))("trainer conformance --engine-model (Gemma 3 270M)", () => {
  const runDir = mkdtempSync(join(tmpdir(), "envforge-engine-conformance-test-"));
  let http: TinkerHttp;

  beforeAll(async () => {
    const state = await startReferenceTrainer({ runDir, model: MODEL, port: await freePort(), threads: 1 });
    http = new TinkerHttp({ baseUrl: state.url });
  }, 300_000);
  afterAll(async () => {
    await stopReferenceTrainer(runDir);
    rmSync(runDir, { recursive: true, force: true });
  });

  it("passes the engine's sync after a load and after a step, and the engine follows the step", async () => {
    const checks = await runEngineSyncConformance(http, { enginePath: MODEL });
    expect(checks.map((check) => [check.name, check.passed])).toEqual([
      ["engine_sync_after_load", true],
      ["engine_sync_after_step", true],
      ["engine_follows_step", true],
    ]);
    expect(checks[2]?.detail).toMatch(/moved the probe completion's mean logprob by \d\.\d{4} nats\/token in the trainer and \d\.\d{4} in the engine$/);
  }, 300_000);

  it("fails, naming the cause, when the engine cannot load the model", async () => {
    const checks = await runEngineSyncConformance(http, { enginePath: join(runDir, "missing.gguf"), baseModel: "gemma-3-270m-q4_k_m.gguf" });
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "engine_sync", passed: false });
    expect(checks[0]?.detail).toMatch(/missing\.gguf not found/);
  }, 120_000);
});
