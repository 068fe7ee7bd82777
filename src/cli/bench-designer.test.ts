import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { benchDesignerConfig } from "./bench-designer-command.js";

const folder = mkdtempSync(join(tmpdir(), "envforge-bench-designer-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(folder, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe("benchDesignerConfig", () => {
  it("uses the fixed setting, the config file over it and the flags over the file", () => {
    const defaults = benchDesignerConfig({});
    expect(defaults).toMatchObject({ seed: 1, plays: 1, designer: { designs: 8 }, admission: { skip: ["self-review", "calibration"] } });
    const path = file("threads.json", { model: { threads: 1 }, designer: { designs: 3, repairTurns: 0 } });
    expect(benchDesignerConfig({ config: path })).toMatchObject({ model: { threads: 1 }, designer: { designs: 3, repairTurns: 0 }, admission: { skip: ["self-review", "calibration"] } });
    expect(benchDesignerConfig({ config: path, designs: 5, model: "embedded:qwen2.5-coder-0.5b" })).toMatchObject({ model: { threads: 1, spec: "embedded:qwen2.5-coder-0.5b" }, designer: { designs: 5 } });
  });

  it("refuses a missing file and unknown or invalid keys", () => {
    expect(() => benchDesignerConfig({ config: join(folder, "absent.json") })).toThrowError(ConfigError);
    expect(() => benchDesignerConfig({ config: file("bad.json", { bogusKey: 1 }) })).toThrowError(/bogusKey/);
    expect(() => benchDesignerConfig({ config: file("designs.json", { designer: { designs: "many" } }) })).toThrowError(ConfigError);
  });
});
