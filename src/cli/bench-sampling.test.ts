import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { benchSamplingCommand } from "./bench-sampling-command.js";

// The benchmark itself runs the reference trainer and llama.cpp for minutes (its figures are in the
// issue's report); here only its refusals, which come before anything starts.
describe("envforge bench sampling", () => {
  const folder = mkdtempSync(join(tmpdir(), "envforge-bench-sampling-test-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  let files = 0;
  const configFile = (trainer: Record<string, unknown>) => {
    files += 1;
    const path = join(folder, `config-${files}.json`);
    writeFileSync(path, JSON.stringify({ trainer }));
    return path;
  };

  it("refuses a config without the engine sampler before starting a trainer", async () => {
    for (const trainer of [{ sampler: "trainer" }, { backend: "noop" }, { backend: "tinker", url: "http://127.0.0.1:9" }]) {
      const run = benchSamplingCommand({ config: configFile(trainer) }, () => {});
      await expect(run).rejects.toBeInstanceOf(ConfigError);
      await expect(benchSamplingCommand({ config: configFile(trainer) }, () => {})).rejects.toThrow(/needs trainer\.backend "reference" and trainer\.sampler "engine"/);
    }
  });

  it("refuses an unknown seed environment and impossible concurrency levels before starting a trainer", async () => {
    await expect(benchSamplingCommand({ env: "no-such-env" }, () => {})).rejects.toThrow(/--env: no seed environment "no-such-env" in envs\/seeds \(code-breaker, /);
    for (const concurrency of [[], [0], [2, 65], [1.5]]) {
      await expect(benchSamplingCommand({ concurrency }, () => {})).rejects.toThrow(/--concurrency takes integers from 1 to 64/);
    }
  });
});
