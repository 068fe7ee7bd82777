// End to end from the real reference trainer (tiny random model) to a vLLM / SGLang server: the
// trainer writes its live adapter as a peft folder, the server is asked to load it and reads the
// folder, the policy samples on it. The servers are local fakes of vLLM's and SGLang's documented
// HTTP contracts (src/testing/fake-inference-servers.ts), not real engines: no vLLM or SGLang runs here.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startReferenceTrainer, stopReferenceTrainer } from "../adapters/trainer/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { EnginePolicy } from "../adapters/weight-sync/index.js";
import { parseConfig } from "../config/index.js";
import { ConfigError } from "../spec/index.js";
import { startFakeSglang, startFakeVllm, type FakeServer } from "../testing/fake-inference-servers.js";
import { freePort } from "../testing/free-port.js";
import { openTrainer } from "./open-trainer.js";

describe("openTrainer with trainer.engine on an inference server (fake vLLM / SGLang)", () => {
  const root = mkdtempSync(join(tmpdir(), "envforge-server-engine-"));
  let trainerUrl = "";
  let server: FakeServer | undefined;
  let store: SqliteStore;
  beforeAll(async () => {
    trainerUrl = (await startReferenceTrainer({ runDir: join(root, "trainer"), model: "tiny-random", port: await freePort(), threads: 1, startTimeoutMs: 110_000 })).url;
    store = new SqliteStore(join(root, "envforge.db"));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    store.close();
    await stopReferenceTrainer(join(root, "trainer"));
    rmSync(root, { recursive: true, force: true });
  });

  const configWith = (engine: Record<string, unknown>, trainer: Record<string, unknown> = {}) =>
    parseConfig({ trainer: { backend: "tinker", url: trainerUrl, loraRank: 4, syncCheckTolerance: null, engine, ...trainer } }, "test");

  it("refuses a server kind without url or an absolute adapterDir before contacting anything", async () => {
    const adapterDir = join(root, "never");
    await expect(openTrainer(configWith({ kind: "vllm", adapterDir }), join(root, "run-a"), store, false)).rejects.toThrowError(/trainer\.engine\.kind "vllm" needs trainer\.engine\.url/);
    await expect(openTrainer(configWith({ kind: "sglang", url: "http://127.0.0.1:9" }), join(root, "run-a"), store, false)).rejects.toThrowError(/needs trainer\.engine\.adapterDir, an absolute folder/);
    const relative = openTrainer(configWith({ kind: "vllm", url: "http://127.0.0.1:9", adapterDir: "adapters" }), join(root, "run-a"), store, false);
    await expect(relative).rejects.toBeInstanceOf(ConfigError);
    await expect(openTrainer(configWith({ kind: "vllm", url: "http://127.0.0.1:9/v1", adapterDir }), join(root, "run-a"), store, false)).rejects.toThrowError(/without \/v1/);
    expect(existsSync(adapterDir)).toBe(false);
  });

  it("vLLM: loads the trainer's peft adapter at start and after a step, and samples on it", async () => {
    server = await startFakeVllm();
    const adapterDir = mkdtempSync(join(root, "adapters-"));
    const opened = await openTrainer(configWith({ kind: "vllm", url: server.url, adapterDir }), join(root, "run-vllm"), store, false);
    try {
      expect(opened.policy).toBeInstanceOf(EnginePolicy);
      expect(opened.engineSampled).toBe(true);
      // the start-of-run sync: the server read a whole adapter the trainer wrote into the shared folder
      expect(server.loads).toHaveLength(1);
      const [load] = server.loads;
      expect(load).toMatchObject({ complete: true, rank: 4 });
      const folder = load?.loraPath as string;
      expect(folder.startsWith(`${adapterDir}/envforge-`)).toBe(true);
      expect(folder).toMatch(/-policy-0$/);
      const config = JSON.parse(readFileSync(join(folder, "adapter_config.json"), "utf8"));
      expect(config).toMatchObject({ peft_type: "LORA", r: 4 });
      expect(load?.files).toEqual({ "adapter_config.json": statSync(join(folder, "adapter_config.json")).size, "adapter_model.safetensors": statSync(join(folder, "adapter_model.safetensors")).size });

      const policy = opened.policy!;
      const first = await policy.generate([{ role: "user", content: "hi" }], { maxTokens: 3, temperature: 1, seed: 1 });
      expect(first).toMatchObject({ engine: "vllm", policyVersion: 0 });
      expect(first.logprobs).toHaveLength(first.tokens?.length ?? -1);
      expect(server.requests.at(-1)).toMatchObject({ model: load?.loraName, prompt: first.promptTokens, logprobs: 1, return_tokens_as_token_ids: true });

      // one optimiser step: the next sample loads the trained adapter first
      const probe = opened.probe!;
      const loss = { kind: "importance_sampling", clipLow: 0.2, clipHigh: 0.28 } as const;
      const learner = (await opened.trainer.forward!([probe], loss)).logprobs?.[0] ?? [];
      await opened.trainer.forwardBackward([{ ...probe, logprobs: learner.map((value, index) => (probe.mask[index] === 1 ? value : 0)), advantages: probe.mask.map((flag) => flag) }], loss);
      expect(await opened.trainer.optimStep({ learningRate: 0.01, beta1: 0.9, beta2: 0.95, epsilon: 1e-8 })).toEqual({ policyVersion: 1 });
      const second = await policy.generate([{ role: "user", content: "hi" }], { maxTokens: 3, temperature: 1, seed: 1 });
      expect(second).toMatchObject({ engine: "vllm", policyVersion: 1 });
      expect(server.loads).toHaveLength(2);
      const trained = server.loads[1]?.loraPath as string;
      expect(trained).toMatch(/-policy-1$/);
      expect(server.requests.at(-1)).toMatchObject({ model: server.loads[1]?.loraName });
      // the trained adapter's weights are not the fresh one's (B = 0 before the step)
      expect(readFileSync(join(trained, "adapter_model.safetensors")).equals(readFileSync(join(folder, "adapter_model.safetensors")))).toBe(false);
    } finally {
      await opened.close();
    }
    // closing unloads the run's adapters and deletes their folders
    expect(server.loaded).toEqual([]);
  });

  it("vLLM without runtime LoRA loading, or with logprobs unlike the trainer's, fails the run at start", async () => {
    server = await startFakeVllm({ runtimeLoraUpdating: false });
    const adapterDir = mkdtempSync(join(root, "adapters-"));
    const off = openTrainer(configWith({ kind: "vllm", url: server.url, adapterDir }), join(root, "run-off"), store, false);
    await expect(off).rejects.toBeInstanceOf(ConfigError);
    await expect(openTrainer(configWith({ kind: "vllm", url: server.url, adapterDir }), join(root, "run-off"), store, false)).rejects.toThrowError(
      /the vLLM sampler at http:\S+ cannot load the trainer's LoRA adapter \(.*VLLM_ALLOW_RUNTIME_LORA_UPDATING=True.*"sampler": "trainer"/s,
    );
    await server.close();
    // the fake's made-up logprobs are far from the tiny model's: the sync check stops the run
    server = await startFakeVllm();
    const mismatched = openTrainer(configWith({ kind: "vllm", url: server.url, adapterDir }, { syncCheckTolerance: 0.25 }), join(root, "run-check"), store, false);
    await expect(mismatched).rejects.toThrowError(/sync check failed: the vLLM sampler's logprobs of the probe differ from the trainer's/);
  });

  it("SGLang: loads the adapter through its own routes and samples with lora_path; --enable-lora missing fails at start", async () => {
    server = await startFakeSglang({ enableLora: false });
    const adapterDir = mkdtempSync(join(root, "adapters-"));
    await expect(openTrainer(configWith({ kind: "sglang", url: server.url, adapterDir }), join(root, "run-sg-off"), store, false)).rejects.toThrowError(
      /the SGLang sampler at \S+ cannot load the trainer's LoRA adapter \(.*Please set `--enable-lora`/s,
    );
    await server.close();
    server = await startFakeSglang();
    const opened = await openTrainer(configWith({ kind: "sglang", url: server.url, adapterDir }), join(root, "run-sg"), store, false);
    try {
      expect(server.loads).toMatchObject([{ complete: true, rank: 4 }]);
      const generation = await opened.policy!.generate([{ role: "user", content: "hi" }], { maxTokens: 3, temperature: 1 });
      expect(generation).toMatchObject({ engine: "sglang", policyVersion: 0 });
      expect(server.requests.at(-1)).toMatchObject({ input_ids: generation.promptTokens, lora_path: server.loads[0]?.loraName, return_logprob: true });
    } finally {
      await opened.close();
    }
  });
});
