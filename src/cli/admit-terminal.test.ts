import { describe, expect, it } from "vitest";
import { admitCommand, evaluateCommand } from "./admit-command.js";

function capture(): { write: (text: string) => void; text: () => string } {
  let out = "";
  return { write: (text) => void (out += text), text: () => out };
}

describe("envforge admit on Harbor task folders (real jail)", () => {
  it("--eval of the broken terminal-task corpus detects every fixture by its labelled gate and admits every terminal seed", async () => {
    const out = capture();
    const code = await evaluateCommand("fixtures/broken-terminal-tasks", { json: true }, out.write);
    const report = JSON.parse(out.text()) as { fixtures: number; detected: number; falseRejections: unknown[]; missed: unknown[] };
    expect(report.missed).toEqual([]);
    expect(report.falseRejections).toEqual([]);
    expect(report.detected).toBe(report.fixtures);
    expect(report.fixtures).toBe(16);
    expect(code).toBe(0);
  }, 900_000);

  it("admits a seed task and names the gate that rejects a broken one", async () => {
    const good = capture();
    expect(await admitCommand("envs/terminal-seeds/config-file", {}, good.write)).toBe(0);
    expect(good.text()).toMatch(/^admitted: admitted by executable, deterministic, oracle, negative-controls, hint, novelty/);
    const bad = capture();
    expect(await admitCommand("fixtures/broken-terminal-tasks/tests-always-pass", { json: true }, bad.write)).toBe(1);
    expect(JSON.parse(bad.text())).toMatchObject({ admitted: false, gate: "negative-controls", reason: "empty_solution_passes" });
  }, 300_000);
});
