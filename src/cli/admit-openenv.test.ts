import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openEnvPackage, readOpenEnvPackage } from "../adapters/openenv/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { NoopTrainer } from "../adapters/trainer/index.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { parseConfig } from "../config/index.js";
import { runSelfPlay } from "../core/selfplay/index.js";
import type { ChatMessage, OpenEnvTask } from "../spec/index.js";
import { testAdmissionResources } from "../testing/admission-resources.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { admitCommand, evaluateCommand } from "./admit-command.js";
import { exportEnvironments } from "./export-env-command.js";
import { terminalSandboxOf } from "./terminal-runtime.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-openenv-admit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function capture(): { write: (text: string) => void; text: () => string } {
  let out = "";
  return { write: (text) => void (out += text), text: () => out };
}

describe("OpenEnv packages through envforge's admission (real jail, openenv 0.10's modules)", () => {
  it("--eval of the broken OpenEnv-package corpus detects every fixture by its labelled gate and admits the good package and the seeds", async () => {
    const out = capture();
    const code = await evaluateCommand("fixtures/broken-openenv-packages", { json: true }, out.write);
    const report = JSON.parse(out.text()) as { fixtures: number; detected: number; falseRejections: unknown[]; missed: unknown[] };
    expect(report.missed).toEqual([]);
    expect(report.falseRejections).toEqual([]);
    expect(report.fixtures).toBe(10);
    expect(report.detected).toBe(10);
    expect(code).toBe(0);
  }, 900_000);

  it("a server that does not start is rejected with the server's own error", async () => {
    const out = capture();
    expect(await admitCommand("fixtures/broken-openenv-packages/server_does_not_start", { json: true }, out.write)).toBe(1);
    const verdict = JSON.parse(out.text()) as { admitted: boolean; gate: string; reason: string; message: string };
    expect(verdict).toMatchObject({ admitted: false, gate: "executable", reason: "reset_failed" });
    expect(verdict.message).toContain("server/app.py does not import: RuntimeError: the server refuses to start");
  }, 300_000);

  it("a seed exported as an OpenEnv package and imported back passes every gate up to novelty, which finds the seed it copies", async () => {
    const { packages } = exportEnvironments(["number-guess"], { format: "openenv", out: join(scratch, "exported") });
    const folder = packages[0]?.folder as string;
    expect(packages[0]?.files).toContain("oracle.py");
    const out = capture();
    expect(await admitCommand(folder, { json: true }, out.write)).toBe(1);
    const result = JSON.parse(out.text()) as { admitted: boolean; gate: string; reason: string; message: string; timingsMs: Record<string, number> };
    // every gate before novelty ran and passed (the oracle through the exported oracle.py), novelty rejected
    expect(Object.keys(result.timingsMs)).toEqual(["static", "executable", "deterministic", "oracle", "negative-controls", "scorer-contract", "hint", "levels", "novelty"]);
    expect(result).toMatchObject({ admitted: false, gate: "novelty", reason: "behaviour_copy" });
    expect(result.message).toContain("number-guess");
  }, 600_000);
});

/**
 * The Solver's replies, scripted (a test double for control flow only): with the hint line it
 * reads the lights from the observation and clears the row from the left; without it, it always
 * toggles position 6.
 */
function solve(messages: readonly ChatMessage[]): string {
  const last = messages.at(-1)?.content ?? "";
  const lights = /Lights: ([01]+)/.exec(last)?.[1] ?? "";
  if (!(messages[0]?.content.includes("Hint:") ?? false)) return "6";
  const first = lights.indexOf("1");
  return String(first < 0 ? 0 : first);
}

describe("an OpenEnv package in a self-play run (scripted Solver for control flow; real jail, store and run loop)", () => {
  it("plays the package with and without its (empty) hint and stores the episodes with their returns", async () => {
    const pkg = openEnvPackage(readOpenEnvPackage("fixtures/openenv-packages/lights_out") as OpenEnvTask, 12);
    const config = parseConfig({ rounds: 1, plays: 2, solver: { environments: 1, maxTurns: 12 }, designer: { designs: 0 }, trainer: { backend: "noop" } });
    const store = new SqliteStore(join(scratch, "run", "envforge.db"));
    const sandbox = terminalSandboxOf(openSandbox(config.sandbox), config);
    try {
      await runSelfPlay({ config, outDir: join(scratch, "run"), resume: false, store, model: new ScriptedModel([], solve), sandbox, trainer: new NoopTrainer(), corpus: [], seeds: [pkg], gates: [], admission: testAdmissionResources() });
      const episodes = store.listEpisodes(1);
      const byHint = (hint: boolean) => episodes.filter((record) => record.hint === hint).map((record) => record.episode);
      // toggling position 6 over and over never clears a row of several lights: 12 turns, no win
      for (const episode of byHint(false)) expect(episode).toMatchObject({ won: false, return: 0, terminated: true });
      expect(byHint(false).every((episode) => episode.turns.length === 12)).toBe(true);
      // clearing from the left wins
      for (const episode of byHint(true)) expect(episode).toMatchObject({ won: true, return: 1, terminated: true });
      expect(byHint(true)[0]?.turns.at(-1)?.observation).toContain("All lights are off.");
    } finally {
      store.close();
      await sandbox.close();
    }
  }, 300_000);
});
