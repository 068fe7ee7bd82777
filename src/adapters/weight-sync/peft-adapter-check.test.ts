import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LoraAdapterError } from "../../spec/index.js";
import { writePeftAdapterFixture } from "../../testing/fake-inference-servers.js";
import { checkPeftAdapter, PEFT_CONFIG_FILE, PEFT_WEIGHTS_FILE } from "./peft-adapter-check.js";

describe("peft adapter folder check", () => {
  const root = mkdtempSync(join(tmpdir(), "envforge-peft-check-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const fresh = (name: string) => {
    const folder = join(root, name);
    writePeftAdapterFixture(folder, 4);
    return folder;
  };
  const problemOf = (folder: string) => {
    try {
      checkPeftAdapter(folder);
      return "none";
    } catch (error) {
      expect(error).toBeInstanceOf(LoraAdapterError);
      return (error as LoraAdapterError).problem;
    }
  };

  it("refuses a missing folder and a folder without one of its files", () => {
    expect(problemOf(join(root, "never-written"))).toBe("missing");
    const noWeights = fresh("no-weights");
    rmSync(join(noWeights, PEFT_WEIGHTS_FILE));
    expect(problemOf(noWeights)).toBe("missing");
    const noConfig = fresh("no-config");
    rmSync(join(noConfig, PEFT_CONFIG_FILE));
    expect(() => checkPeftAdapter(noConfig)).toThrowError(/has no adapter_config\.json/);
  });

  it("refuses a truncated adapter_config.json and truncated weights", () => {
    const config = fresh("short-config");
    const text = readFileSync(join(config, PEFT_CONFIG_FILE), "utf8");
    writeFileSync(join(config, PEFT_CONFIG_FILE), text.slice(0, text.length / 2));
    expect(problemOf(config)).toBe("truncated");
    expect(() => checkPeftAdapter(config)).toThrowError(/adapter_config\.json is not complete JSON/);

    const weights = fresh("short-weights");
    const size = readFileSync(join(weights, PEFT_WEIGHTS_FILE)).length;
    truncateSync(join(weights, PEFT_WEIGHTS_FILE), size - 16);
    expect(problemOf(weights)).toBe("truncated");
    expect(() => checkPeftAdapter(weights)).toThrowError(/tensor data, its header needs/);

    const header = fresh("short-header");
    truncateSync(join(header, PEFT_WEIGHTS_FILE), 20);
    expect(problemOf(header)).toBe("truncated");
    const empty = fresh("empty-weights");
    writeFileSync(join(empty, PEFT_WEIGHTS_FILE), "");
    expect(problemOf(empty)).toBe("truncated");
  });

  it("refuses a config that is not a LoRA's and weights that are not LoRA matrices", () => {
    const prefix = fresh("prefix-tuning");
    writeFileSync(join(prefix, PEFT_CONFIG_FILE), JSON.stringify({ peft_type: "PREFIX_TUNING", num_virtual_tokens: 8 }));
    expect(problemOf(prefix)).toBe("not_lora");
    const noRank = fresh("no-rank");
    writeFileSync(join(noRank, PEFT_CONFIG_FILE), JSON.stringify({ peft_type: "LORA", lora_alpha: 16 }));
    expect(problemOf(noRank)).toBe("not_lora");
    const gguf = fresh("gguf-renamed");
    writeFileSync(join(gguf, PEFT_WEIGHTS_FILE), Buffer.concat([Buffer.from("GGUF"), Buffer.alloc(60)]));
    expect(problemOf(gguf)).toBe("not_lora");
    const padded = fresh("padded");
    writeFileSync(join(padded, PEFT_WEIGHTS_FILE), Buffer.concat([readFileSync(join(padded, PEFT_WEIGHTS_FILE)), Buffer.alloc(8)]));
    expect(problemOf(padded)).toBe("not_lora");
  });

  it("reads rank, alpha, modules and tensors of a whole adapter", () => {
    const folder = fresh("whole");
    const summary = checkPeftAdapter(folder);
    expect(summary).toMatchObject({ folder, rank: 4, alpha: 32, targetModules: ["q_proj"], tensors: 2 });
    expect(summary.bytes).toBe(readFileSync(join(folder, PEFT_WEIGHTS_FILE)).length);
  });
});
