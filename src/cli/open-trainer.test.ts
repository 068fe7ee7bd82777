import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedModelPath } from "../adapters/llm/index.js";
import { LocalChatTokenizer, REFERENCE_TRAINER_DIR, ReferenceTrainerTokenizer, startReferenceTrainer, stopReferenceTrainer, TinkerHttp } from "../adapters/trainer/index.js";
import { EnginePolicy } from "../adapters/weight-sync/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { parseConfig } from "../config/index.js";
import { ensureProbeBaseline, measureProbe, PROBE_COMPLETION, PROBE_MESSAGES, TRAINER_CHECKPOINT_META } from "../core/selfplay/index.js";
import { ConfigError } from "../spec/index.js";
import type { TinkerLanguageModel } from "../adapters/trainer/index.js";
import { openTrainer } from "./open-trainer.js";
import { freePort } from "../testing/free-port.js";
import { characterTokenizerFolder } from "../testing/character-tokenizer.js";

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
    await expect(openTrainer(hosted, trainerDir, store, false)).rejects.toThrow(/no tokenizer route.*set trainer\.tokenizer to a local folder/s);
    // a trainer.tokenizer that is not a tokenizer folder is refused before any trainer is contacted or started
    const noFolder = join(trainerDir, "no-tokenizer-folder");
    const badTokenizer = parseConfig({ trainer: { backend: "tinker", url: "http://127.0.0.1:9", tokenizer: noFolder } }, "test");
    await expect(openTrainer(badTokenizer, trainerDir, store, false)).rejects.toThrow(new RegExp(`trainer\\.tokenizer: the folder ${noFolder} does not exist`));
    const badReference = parseConfig({ trainer: { backend: "reference", tokenizer: noFolder } }, "test");
    await expect(openTrainer(badReference, join(trainerDir, "no-start"), store, false)).rejects.toThrow(/trainer\.tokenizer: the folder/);
    expect(existsSync(join(trainerDir, "no-start"))).toBe(false);
    bare.close();
    await expect(openTrainer(remote, trainerDir, store, false)).rejects.toThrow(/not one/);
    // a trainer.model that does not exist is refused before the trainer starts, naming the key
    const lostModel = parseConfig({ trainer: { backend: "reference", model: join(trainerDir, "lost.gguf") } }, "test");
    await expect(openTrainer(lostModel, join(trainerDir, "no-start-model"), store, false)).rejects.toThrow(/trainer\.model: .*lost\.gguf does not exist/);
    expect(existsSync(join(trainerDir, "no-start-model"))).toBe(false);
    store.close();
  });

  it("samples a Tinker server without tokenizer routes through the local tokenizer of trainer.tokenizer", async () => {
    // The server: the reference trainer behind a proxy that answers the two /envforge/v1/ routes 404, as hosted
    // Tinker does, and records the asample requests. The tokenizer: a character-level tokenizer folder whose ids
    // fit the tiny model's 64-token vocabulary (the tiny model's own byte tokenizer is the server's, never used here).
    const { server, port, envforgeRequests, sampleBodies } = await routeLessProxy(url);
    const folder = characterTokenizerFolder(join(trainerDir, "character-tokenizer"));
    const store = new SqliteStore(join(trainerDir, "local-tokenizer.db"));
    const settings = { backend: "tinker", url: `http://127.0.0.1:${port}`, baseModel: "tiny-random", loraRank: 4 } as const;
    await expect(openTrainer(parseConfig({ trainer: settings }, "test"), join(trainerDir, "route-less"), store, false)).rejects.toThrow(/trainer\.tokenizer/);
    envforgeRequests.length = 0;

    const opened = await openTrainer(parseConfig({ trainer: { ...settings, tokenizer: folder } }, "test"), join(trainerDir, "route-less"), store, false);
    const local = await LocalChatTokenizer.open(folder);
    const messages = [
      { role: "system", content: "You are the Solver." },
      { role: "user", content: "Guess a number: 1, 2 or 3?" },
    ] as const;
    const generation = await opened.policy!.generate(messages, { maxTokens: 6, temperature: 1, seed: 3 });
    // the local tokenizer's prompt is what reached the sampler, and the completion is decoded by it
    const prompt = await local.encodeChat(messages);
    expect(generation.promptTokens).toEqual(prompt);
    expect(sampleBodies.map((body) => body.prompt.chunks[0]?.tokens)).toEqual([prompt]);
    expect(generation.tokens?.length).toBeGreaterThan(0);
    expect(generation.text).toBe(await local.decode(generation.tokens ?? []));
    // the probe datum is tokenised the same way, and the trainer computes its logprobs
    const probePrompt = await local.encodeChat(PROBE_MESSAGES);
    const probeCompletion = await local.encodeText(PROBE_COMPLETION);
    expect(opened.probe?.modelInput).toEqual([...probePrompt, ...probeCompletion].slice(0, -1));
    expect(opened.probe?.mask.filter((flag) => flag === 1)).toHaveLength(probeCompletion.length);
    const baseline = await ensureProbeBaseline(opened.trainer, opened.probe!, { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 }, store);
    expect(Number.isFinite(baseline)).toBe(true);
    expect(envforgeRequests).toEqual([]);
    await opened.close();
    store.close();
    server.close();
  });
});

/** `trainer.backend: "reference"` on the embedded Gemma 3 270M GGUF: the policy samples on llama.cpp. */
describe.skipIf(!existsSync(embeddedModelPath()) || !existsSync(join(REFERENCE_TRAINER_DIR, ".venv/bin/python")))("openTrainer with the engine sampler", () => {
  const trainerDir = mkdtempSync(join(tmpdir(), "envforge-open-engine-"));
  afterAll(() => rmSync(trainerDir, { recursive: true, force: true }));
  const configWith = async (trainer: Record<string, unknown>) =>
    parseConfig({ model: { contextSize: 1024, threads: 1 }, trainer: { backend: "reference", sampler: "engine", loraRank: 4, port: await freePort(), ...trainer } }, "test");

  it("samples on llama.cpp with the trainer's adapter loaded and the sync check passed; the trainer's sampler stays available", async () => {
    const store = new SqliteStore(join(trainerDir, "engine.db"));
    const outDir = join(trainerDir, "run");
    const opened = await openTrainer(await configWith({}), outDir, store, false);
    try {
      expect(opened.policy).toBeInstanceOf(EnginePolicy);
      expect(existsSync(join(outDir, "adapters", "policy-0.gguf"))).toBe(true);
      expect(opened.syncCheck).toMatchObject({ passed: true, tolerance: 0.25 });
      expect(opened.syncCheck?.positions).toBe(opened.probe?.targetTokens.length);
      const settings = { maxTokens: 4, temperature: 1, seed: 5 } as const;
      const engine = await opened.policy!.generate(PROBE_MESSAGES, settings);
      const trainer = await opened.trainerPolicy!.generate(PROBE_MESSAGES, settings);
      expect(engine).toMatchObject({ engine: "llama.cpp", policyVersion: 0 });
      expect(trainer).toMatchObject({ engine: "trainer", policyVersion: 0 });
      expect(engine.promptTokens).toEqual(trainer.promptTokens);
      // both tokenise in-process with the mirror of the trainer's tokenizer, which tokenises a Solver chat as the trainer's routes do
      expect(opened.tokenizer).toBe(`a local mirror of the trainer's tokenizer (${embeddedModelPath()}.hf)`);
      const { url } = JSON.parse(readFileSync(join(outDir, "trainer.json"), "utf8")) as { url: string };
      const routes = new ReferenceTrainerTokenizer(new TinkerHttp({ baseUrl: url }));
      const chat = [
        { role: "system", content: "You are the Solver. Reply with one action." },
        { role: "user", content: "Observation: the vault has 3 dials — set them.\nAct." },
        { role: "assistant", content: "set 1 2 3" },
        { role: "user", content: "Dial 2 is wrong 🙂" },
      ] as const;
      expect(await opened.policy!.generate(chat, settings).then((generation) => generation.promptTokens)).toEqual(await routes.encodeChat(chat));
      expect(await routes.decode(engine.tokens!)).toBe(engine.text);
    } finally {
      await opened.close();
      store.close();
    }
  }, 400_000);

  it("fails at start with a ConfigError naming trainer.sampler when the sync check fails, and stops the trainer", async () => {
    const store = new SqliteStore(join(trainerDir, "strict.db"));
    const outDir = join(trainerDir, "strict");
    const failing = openTrainer(await configWith({ syncCheckTolerance: 1e-6 }), outDir, store, false);
    await expect(failing).rejects.toBeInstanceOf(ConfigError);
    await expect(failing).rejects.toThrow(/sync check failed: .* differ from the trainer's by \d+\.\d+ nats\/token .*"sampler": "trainer"/);
    expect(existsSync(join(outDir, "trainer.json"))).toBe(false);
    store.close();
  }, 400_000);
});

/** A proxy to `upstream` that refuses `/envforge/` routes with 404 and records the JSON bodies of `asample` requests. */
async function routeLessProxy(upstream: string): Promise<{
  server: Server;
  port: number;
  envforgeRequests: string[];
  sampleBodies: { prompt: { chunks: { tokens: number[] }[] } }[];
}> {
  const envforgeRequests: string[] = [];
  const sampleBodies: { prompt: { chunks: { tokens: number[] }[] } }[] = [];
  const server = createHttpServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = request.url ?? "/";
    if (path.startsWith("/envforge/")) {
      envforgeRequests.push(path);
      response.writeHead(404, { "content-type": "application/json" });
      response.end('{"detail": "Not Found"}');
      return;
    }
    if (path === "/api/v1/asample") sampleBodies.push(JSON.parse(body));
    const answer = await fetch(`${upstream}${path}`, {
      method: request.method ?? "GET",
      headers: { "content-type": "application/json" },
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body }),
    });
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    response.end(await answer.text());
  });
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  return { server, port, envforgeRequests, sampleBodies };
}
