import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceTrainer, stopReferenceTrainer } from "../adapters/trainer/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { parseConfig } from "../config/index.js";
import { ensureProbeBaseline, measureProbe, TRAINER_CHECKPOINT_META } from "../core/selfplay/index.js";
import { ConfigError } from "../spec/index.js";
import type { TinkerLanguageModel } from "../adapters/trainer/index.js";
import { openTrainer } from "./open-trainer.js";
import { freePort } from "../testing/free-port.js";

/** `trainer.backend: "tinker"` against a running reference trainer (tiny random model). */
describe("openTrainer", () => {
  const trainerDir = mkdtempSync(join(tmpdir(), "envforge-open-trainer-"));
  let url = "";
  beforeAll(async () => {
    url = (await startReferenceTrainer({ runDir: trainerDir, model: "tiny-random", port: await freePort(), threads: 1, startTimeoutMs: 110_000 })).url;
  });
  afterAll(async () => {
    await stopReferenceTrainer(trainerDir);
    rmSync(trainerDir, { recursive: true, force: true });
  });

  it("steps, checkpoints and writes metrics lines; a resumed run continues the policy version", async () => {
    const outDir = join(trainerDir, "run");
    const store = new SqliteStore(join(trainerDir, "envforge.db"));
    const config = parseConfig({ trainer: { backend: "tinker", url, loraRank: 4, checkpointEvery: 1 } }, "test");
    const opened = await openTrainer(config, outDir, store, false);
    // the policy samples through the trainer (base weights first) and records its prompt tokens
    const policy = opened.policy as TinkerLanguageModel;
    expect(policy.currentSampler.modelPath).toBeNull();
    const generation = await policy.generate([{ role: "user", content: "hi" }], { maxTokens: 3, temperature: 0 });
    expect(generation.promptTokens?.length).toBeGreaterThan(0);
    expect(generation.logprobs).toHaveLength(generation.tokens?.length ?? -1);
    expect(opened.probe?.mask.filter((flag) => flag === 1).length).toBe("My guess is 7.".length);
    // the probe's completion tokens get a positive advantage: after the step the probe's logprobs must have risen
    const probe = opened.probe!;
    const loss = { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 } as const;
    await ensureProbeBaseline(opened.trainer, probe, loss, store);
    const learner = (await opened.trainer.forward!([probe], loss)).logprobs?.[0] ?? [];
    const datum = { ...probe, logprobs: learner.map((value, index) => (probe.mask[index] === 1 ? value : 0)), advantages: probe.mask.map((flag) => flag) };
    await opened.trainer.forwardBackward([datum], loss);
    expect(await opened.trainer.optimStep({ learningRate: 0.01, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 })).toEqual({ policyVersion: 1 });
    expect((await measureProbe(opened.trainer, probe, loss, store))?.deltaFromStart).toBeGreaterThan(0);
    // after the step the policy samples from the newly published weights
    expect(policy.currentSampler.modelPath).toMatch(/step-1/);
    await opened.close();
    expect(store.getMeta(TRAINER_CHECKPOINT_META)).toMatchObject({ policyVersion: 1 });
    const line = JSON.parse(readFileSync(join(outDir, "metrics.jsonl"), "utf8").trim());
    expect(line).toMatchObject({ kind: "trainer_step", policyVersion: 1, datums: 1, tokens: probe.modelInput.length });

    const resumed = await openTrainer(config, outDir, store, true);
    expect(await resumed.trainer.optimStep({ learningRate: 0.01, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 })).toEqual({ policyVersion: 2 });
    await resumed.close();
    store.close();
  });

  it("refuses configurations it cannot serve", async () => {
    const store = new SqliteStore(join(trainerDir, "other.db"));
    const missing = openTrainer(parseConfig({}, "test"), join(trainerDir, "no-venv"), store, false, { python: join(trainerDir, "no-such-python") });
    await expect(missing).rejects.toBeInstanceOf(ConfigError);
    await expect(openTrainer(parseConfig({}, "test"), join(trainerDir, "no-venv"), store, false, { python: join(trainerDir, "no-such-python") })).rejects.toThrow(
      /run \.\/scripts\/setup\.sh.*"backend": "noop"/s,
    );
    await expect(openTrainer(parseConfig({ trainer: { backend: "tinker" } }, "test"), trainerDir, store, false)).rejects.toBeInstanceOf(ConfigError);
    const remote = parseConfig({ model: { spec: "http://127.0.0.1:9/v1#m" }, trainer: { backend: "reference" } }, "test");
    // a server without the tokenizer routes (hosted Tinker) cannot serve the policy: a ConfigError that says so
    const bare = createHttpServer((_request, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end("{}");
    });
    const barePort = await new Promise<number>((resolve) => bare.listen(0, "127.0.0.1", () => resolve((bare.address() as { port: number }).port)));
    const hosted = parseConfig({ trainer: { backend: "tinker", url: `http://127.0.0.1:${barePort}` } }, "test");
    await expect(openTrainer(hosted, trainerDir, store, false)).rejects.toThrow(/no tokenizer route/);
    bare.close();
    await expect(openTrainer(remote, trainerDir, store, false)).rejects.toThrow(/not one/);
    store.close();
  });
});
