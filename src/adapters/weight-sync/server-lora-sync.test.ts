// These tests exercise the documented HTTP contracts of vLLM's and SGLang's runtime LoRA loading
// (routes, bodies, statuses 404/501/400/500) against local fakes (src/testing/fake-inference-servers.ts),
// not against a real engine: no vLLM or SGLang runs here. The trainer side is a stub of the
// reference trainer's export route; the end-to-end test with the real trainer is
// src/cli/open-trainer-server-engine.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ConfigError, LoraAdapterError, ModelUnavailableError, TrainerRequestError } from "../../spec/index.js";
import { freePort } from "../../testing/free-port.js";
import { startFakeSglang, startFakeVllm, writePeftAdapterFixture, type FakeServer, type FakeServerOptions } from "../../testing/fake-inference-servers.js";
import type { TinkerHttp } from "../trainer/index.js";
import { ServerLoraSync } from "./server-lora-sync.js";
import { EXPORT_PEFT_LORA_ROUTE } from "./trainer-lora-export.js";

type Fault = "none" | "write-nothing" | "truncate-config" | "route-missing";

/** A stub of the reference trainer's peft export route: writes a small adapter where asked, or a fault. */
function stubTrainer(fault: () => Fault, rank = 4): { http: TinkerHttp; exports: { model_id: unknown; path: unknown }[] } {
  const exports: { model_id: unknown; path: unknown }[] = [];
  const http = {
    post: async (route: string, body: { model_id: string; path: string }) => {
      expect(route).toBe(EXPORT_PEFT_LORA_ROUTE);
      exports.push(body);
      const kind = fault();
      if (kind === "route-missing") throw new TrainerRequestError(`${route} answered 404: Not Found`, { status: 404 });
      if (kind !== "write-nothing") writePeftAdapterFixture(body.path, rank);
      if (kind === "truncate-config") {
        const config = join(body.path, "adapter_config.json");
        writeFileSync(config, readFileSync(config, "utf8").slice(0, 20));
      }
      return { path: body.path, rank, alpha: 32, target_modules: ["q_proj"], tensors: 2, files: {}, bytes: 0 };
    },
  } as unknown as TinkerHttp;
  return { http, exports };
}

const KINDS = [
  { kind: "vllm", start: startFakeVllm, load: "/v1/load_lora_adapter" },
  { kind: "sglang", start: startFakeSglang, load: "/load_lora_adapter" },
] as const;

describe.each(KINDS)("$kind runtime LoRA sync (documented HTTP contract, fake server)", ({ kind, start }) => {
  const root = mkdtempSync(join(tmpdir(), `envforge-${kind}-sync-`));
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const syncWith = async (options: FakeServerOptions, fault: Fault = "none", extra: { keep?: number; rank?: number } = {}) => {
    server = await start(options);
    const directory = mkdtempSync(join(root, "adapters-"));
    const trainer = stubTrainer(() => fault, extra.rank);
    const sync = new ServerLoraSync({ kind, url: server.url, http: trainer.http, modelId: "model_1", directory, instance: "run1", ...(extra.keep ? { keep: extra.keep } : {}) });
    return { sync, directory, trainer, server };
  };

  it("refuses a relative folder, a URL with /v1 and a bad name before any request", async () => {
    const { http } = stubTrainer(() => "none");
    expect(() => new ServerLoraSync({ kind, url: "http://127.0.0.1:9", http, modelId: "m", directory: "adapters" })).toThrowError(ConfigError);
    expect(() => new ServerLoraSync({ kind, url: "http://127.0.0.1:9/v1", http, modelId: "m", directory: "/tmp" })).toThrowError(/server root without \/v1/);
    expect(() => new ServerLoraSync({ kind, url: "http://127.0.0.1:9", http, modelId: "m", directory: "/tmp", adapterName: "a b" })).toThrowError(ConfigError);
    const sync = new ServerLoraSync({ kind, url: "http://127.0.0.1:9", http, modelId: "m", directory: "/tmp" });
    await expect(sync.sync({ name: "../policy-1", policyVersion: 1 })).rejects.toThrowError(ConfigError);
  });

  it("refuses a missing adapter folder before asking the server to load it", async () => {
    const { sync, server } = await syncWith({}, "write-nothing");
    const failure = sync.sync({ name: "policy-0", policyVersion: 0 });
    await expect(failure).rejects.toBeInstanceOf(LoraAdapterError);
    await expect(sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ problem: "missing" });
    expect(server.loads).toEqual([]);
    expect(sync.adapter).toBeNull();
  });

  it("refuses a truncated adapter_config.json before asking the server to load it", async () => {
    const { sync, server } = await syncWith({}, "truncate-config");
    await expect(sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ problem: "truncated", message: expect.stringMatching(/adapter_config\.json is not complete JSON/) });
    expect(server.loads).toEqual([]);
  });

  it("passes on a trainer without the export route as the trainer's error", async () => {
    const { sync } = await syncWith({}, "route-missing");
    await expect(sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ status: 404 });
  });

  it("a server refusing the adapter (rank above its maximum) is a refused LoraAdapterError with the server's reason and the fix", async () => {
    const { sync, server } = await syncWith({ maxLoraRank: 8 }, "none", { rank: 16 });
    const failure = sync.sync({ name: "policy-0", policyVersion: 0 });
    await expect(failure).rejects.toMatchObject({ problem: "refused", message: expect.stringMatching(/greater than max_lora_rank 8.*--max-lora-rank/s) });
    // the server did read a whole adapter folder: the refusal is its own
    expect(server.loads).toMatchObject([{ complete: true, rank: 16 }]);
    expect(server.loaded).toEqual([]);
  });

  it("a server that cannot see the trainer's folder is named as such", async () => {
    const { sync } = await syncWith({ readPath: (path) => path.replace("/adapters-", "/elsewhere-") });
    const expected = kind === "vllm" ? { problem: "missing", message: expect.stringMatching(/found no LoRA adapter at .*same absolute path/) } : { problem: "refused" };
    await expect(sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject(expected);
  });

  it("a server without runtime LoRA loading fails with the flags to start it with", async () => {
    if (kind === "vllm") {
      // no VLLM_ALLOW_RUNTIME_LORA_UPDATING: the route does not exist (404 for any body)
      const off = await syncWith({ runtimeLoraUpdating: false });
      await expect(off.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toThrowError(ConfigError);
      await expect(off.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toThrowError(/VLLM_ALLOW_RUNTIME_LORA_UPDATING=True.*--enable-lora/s);
      await server?.close();
      // routes there but no --enable-lora: the engine refuses
      const noLora = await syncWith({ enableLora: false });
      await expect(noLora.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ problem: "refused", message: expect.stringMatching(/LoRA is not enabled.*--enable-lora/s) });
    } else {
      const noLora = await syncWith({ enableLora: false });
      await expect(noLora.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ problem: "refused", message: expect.stringMatching(/Please set `--enable-lora`.*start SGLang with --enable-lora/s) });
    }
    await server?.close();
    // a server without LoRA support at all: 501 Not Implemented
    const unsupported = await syncWith({ loadStatus: 501 });
    await expect(unsupported.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toThrowError(ConfigError);
    await expect(unsupported.sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toThrowError(/has no runtime LoRA loading \(POST \S+ answered 501/);
  });

  it("a retried load of a name the server already holds (an earlier attempt that timed out, say) is no error", async () => {
    const { sync, server } = await syncWith({});
    await sync.sync({ name: "policy-3", policyVersion: 3 });
    await expect(sync.sync({ name: "policy-3", policyVersion: 3 })).resolves.toMatchObject({ name: "policy-3", policyVersion: 3 });
    expect(server.loads.length).toBeGreaterThanOrEqual(1);
  });

  it("an unreachable server is a retryable ModelUnavailableError", async () => {
    const directory = mkdtempSync(join(root, "adapters-"));
    const sync = new ServerLoraSync({ kind, url: `http://127.0.0.1:${await freePort()}`, http: stubTrainer(() => "none").http, modelId: "m", directory, requestTimeoutMs: 5_000 });
    const failure = sync.sync({ name: "policy-0", policyVersion: 0 });
    await expect(failure).rejects.toBeInstanceOf(ModelUnavailableError);
    await expect(sync.sync({ name: "policy-0", policyVersion: 0 })).rejects.toMatchObject({ retryable: true });
  });

  it("loads each version under its own name with the documented body, keeps the newest two, and unloads the rest", async () => {
    const { sync, server, directory, trainer } = await syncWith({});
    const first = await sync.sync({ name: "policy-0", policyVersion: 0 });
    const path0 = join(directory, "envforge-run1-policy-0");
    expect(first).toMatchObject({ name: "policy-0", policyVersion: 0, location: path0 });
    expect(first.exportMs).toBeGreaterThanOrEqual(0);
    expect(first.loadMs).toBeGreaterThanOrEqual(0);
    expect(trainer.exports).toEqual([{ model_id: "model_1", path: path0 }]);
    expect(server.loads).toEqual([{ loraName: "envforge-run1-policy-0", loraPath: path0, complete: true, files: expect.any(Object), rank: 4 }]);
    expect(sync.adapter).toBe("envforge-run1-policy-0");

    await sync.sync({ name: "policy-1", policyVersion: 1 });
    await sync.sync({ name: "policy-2", policyVersion: 2 });
    expect(sync.adapter).toBe("envforge-run1-policy-2");
    expect(server.loaded).toEqual(["envforge-run1-policy-1", "envforge-run1-policy-2"]);
    expect(server.unloads).toEqual(["envforge-run1-policy-0"]);
    expect(existsSync(path0)).toBe(false);
    expect(existsSync(join(directory, "envforge-run1-policy-1"))).toBe(true);

    await sync.close();
    expect(server.loaded).toEqual([]);
    expect(existsSync(join(directory, "envforge-run1-policy-2"))).toBe(false);
  });
});
