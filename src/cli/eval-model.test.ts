import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { checkpointAdapter, checkpointSteps, storedRunConfig } from "./eval-model.js";

// The folder layout is the one a run writes: adapters/policy-N.gguf (the engine's, newest two kept) and
// trainer-checkpoints/<model>/sampler_weights/step-N.pt (the reference trainer's, every step). The files are empty
// placeholders: these tests cover finding a step's adapter, not loading it.
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function run(files: readonly string[]): string {
  const folder = mkdtempSync(join(tmpdir(), "envforge-run-"));
  folders.push(folder);
  for (const file of files) {
    mkdirSync(join(folder, file, ".."), { recursive: true });
    writeFileSync(join(folder, file), "");
  }
  return folder;
}

describe("a run's checkpoint adapters", () => {
  it("step 0 is the base model; an engine adapter wins over a sampler checkpoint, which is exported once", () => {
    const dir = run(["adapters/policy-3.gguf", "adapters/policy-4.gguf", ...[1, 2, 3, 4].map((step) => `trainer-checkpoints/model-abc/sampler_weights/step-${step}.pt`)]);
    expect(checkpointSteps(dir)).toEqual([1, 2, 3, 4]);
    expect(checkpointAdapter(dir, 0)).toEqual({ kind: "base" });
    expect(checkpointAdapter(dir, 4)).toEqual({ kind: "gguf", path: resolve(dir, "adapters/policy-4.gguf") });
    expect(checkpointAdapter(dir, 2)).toEqual({ kind: "sampler", samplerPath: "tinker://model-abc/sampler_weights/step-2", target: resolve(dir, "eval-adapters/step-2.gguf") });
    mkdirSync(join(dir, "eval-adapters"));
    writeFileSync(join(dir, "eval-adapters", "step-2.gguf"), "");
    expect(checkpointAdapter(dir, 2)).toEqual({ kind: "gguf", path: resolve(dir, "eval-adapters/step-2.gguf") });
  });
  it("a step without an adapter is a ConfigError naming the steps there are", () => {
    expect(() => checkpointAdapter(run(["adapters/policy-5.gguf"]), 9)).toThrowError(/steps with one: 5/);
    expect(() => checkpointAdapter(run([]), 1)).toThrowError(ConfigError);
    expect(() => storedRunConfig(run([]))).toThrowError(/holds no run/);
  });
});
