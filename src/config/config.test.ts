import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { mergeConfigInput, parseConfig, readConfigFile } from "./index.js";

describe("config", () => {
  it("fills every default from an empty object", () => {
    const config = parseConfig({});
    expect(config.rounds).toBe(2);
    expect(config.trainer.backend).toBe("reference");
    expect(config.model.spec).toBe("embedded");
    expect(config.reward).toMatchObject({ regretScale: 0.15, regretWeight: 0.4, anchorWeight: 0.6 });
    expect(config.sandbox.backend).toBe("bwrap");
  });

  it("fills the evolution defaults from the sources (15 generations, probes of 8, release at 6, funnel 4/8 and 30 turns)", () => {
    const config = parseConfig({});
    expect(config.solver.sampling).toBe("uniform");
    expect(config.evolution).toMatchObject({ generations: 15, direction: "mixed", effort: "high", rubrics: null });
    expect(config.evolution.frontier).toEqual({ rollouts: 8, releaseWins: 6, lineagesFrom: null });
    expect(config.evolution.funnel).toEqual({ enabled: false, rollouts: 8, maxPassRate: 0.5, minMeanTurns: 30 });
  });

  it("refuses a release threshold above the probe's rollouts and an unknown direction", () => {
    expect(() => parseConfig({ evolution: { frontier: { rollouts: 4, releaseWins: 6 } } })).toThrowError(/evolution\.frontier\.releaseWins/);
    expect(() => parseConfig({ evolution: { direction: "up" } })).toThrowError(/evolution\.direction/);
    // the trainer computes the truncated weight in float32: a cap it cannot hold is refused before the run starts
    expect(() => parseConfig({ advantages: { importanceCap: 1e39 } })).toThrowError(/advantages\.importanceCap/);
    expect(() => parseConfig({ advantages: { importanceCap: 1e-300 } })).toThrowError(/advantages\.importanceCap/);
  });

  it("names the key and the allowed values of a bad enum", () => {
    expect(() => parseConfig({ sandbox: { backend: "docker" } }, "my.json")).toThrowError(/sandbox\.backend.*"bwrap"/s);
  });

  it("names unknown keys once, with the keys that level takes", () => {
    expect(() => parseConfig({ solver: { plays: 3 } })).toThrowError(/solver.*plays/s);
    const message = (() => {
      try {
        parseConfig({ solver: { formatt: "answer" }, sandbox: { remote: { url: "x" } }, roundz: 1 });
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    })();
    expect(message.match(/formatt/g)).toHaveLength(1);
    expect(message).toMatch(/solver: .*"formatt".*; allowed: environments, maxTurns, maxTokens, format, historyChars, temperature, sampling, concurrency/);
    expect(message).toMatch(/sandbox\.remote: .*; allowed: urls, tokenEnv, connectTimeoutMs, heartbeatMs, cooldownMs/);
    expect(message).toMatch(/\(root\): .*"roundz".*; allowed: rounds, out, seed, plays, model,/);
  });

  it("names the key of a wrong type", () => {
    try {
      parseConfig({ rounds: "many" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe("config_invalid");
      expect((error as Error).message).toContain("rounds");
    }
  });

  it("reports a corrupt file as a ConfigError", () => {
    const path = join(mkdtempSync(join(tmpdir(), "envforge-config-")), "bad.json");
    writeFileSync(path, "{ rounds: 2,");
    expect(() => readConfigFile(path)).toThrowError(ConfigError);
    expect(() => readConfigFile(join(tmpdir(), "no-such-envforge.json"))).toThrowError(/cannot read config file/);
    for (const [text, kind] of [["[1, 2]", "an array"], ["null", "null"], ["3", "number"]] as const) {
      writeFileSync(path, text);
      expect(() => readConfigFile(path)).toThrowError(`must hold a JSON object, not ${kind}`);
    }
  });

  it("merges flags over file values deeply", () => {
    const merged = mergeConfigInput({ solver: { maxTurns: 4, temperature: 0.1 } }, { solver: { maxTurns: 6 } });
    expect(parseConfig(merged).solver).toMatchObject({ maxTurns: 6, temperature: 0.1 });
  });
});
