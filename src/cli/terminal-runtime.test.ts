import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import { packageId } from "../spec/index.js";
import { loadCandidates } from "./evolve-command.js";
import { resolveRunConfig } from "./run-command.js";
import { terminalSeedPackages } from "./terminal-runtime.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-terminal-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("terminal tasks in run and evolve (no jail needed)", () => {
  it("run --terminal-seeds and --allow-network map to terminal.seeds and terminal.allowNetwork", () => {
    const config = resolveRunConfig({ terminalSeeds: "envs/terminal-seeds", allowNetwork: true });
    expect(config.terminal).toMatchObject({ seeds: "envs/terminal-seeds", allowNetwork: true, maxTurns: 30 });
    expect(resolveRunConfig({}).terminal).toMatchObject({ seeds: null, allowNetwork: false });
  });

  it("terminal.seeds reads every seed task as a package of terminal.maxTurns commands", () => {
    const packages = terminalSeedPackages(parseConfig({ terminal: { seeds: "envs/terminal-seeds", maxTurns: 8 } }));
    expect(packages).toHaveLength(8);
    expect(packages.every((pkg) => pkg.terminal !== undefined && pkg.manifest.maxTurns === 8)).toBe(true);
    expect(new Set(packages.map(packageId)).size).toBe(8);
    expect(terminalSeedPackages(parseConfig({}))).toEqual([]);
  });

  it("terminal.seeds that hold no task, or a task that does not read, are refused with the folder and the verdict", () => {
    expect(() => terminalSeedPackages(parseConfig({ terminal: { seeds: "envs/seeds" } }))).toThrow(/terminal.seeds envs\/seeds: no Harbor task folder/);
    const broken = join(scratch, "broken");
    mkdirSync(broken);
    cpSync("fixtures/broken-terminal-tasks/no-tests", join(broken, "no-tests"), { recursive: true });
    expect(() => terminalSeedPackages(parseConfig({ terminal: { seeds: broken } }))).toThrow(/no-tests does not read \(missing_file\): tests\/test.sh is missing/);
  });

  it("evolve --from a folder of Harbor tasks copies each seed once to tasks/<name>/g0 and reads it from there", () => {
    const tasksDir = join(scratch, "evolution", "tasks");
    const first = loadCandidates("envs/terminal-seeds", { maxTurns: 12, tasksDir });
    expect(first).toHaveLength(8);
    expect(first[0]?.terminal?.folder).toBe(resolve(tasksDir, "config-file", "g0"));
    expect(first[0]?.manifest.maxTurns).toBe(12);
    // a second load (a resumed evolution) reads the copies and keeps them as they are
    writeFileSync(join(tasksDir, "config-file", "g0", "environment", "note.txt"), "kept\n");
    const again = loadCandidates("envs/terminal-seeds", { maxTurns: 12, tasksDir });
    expect(existsSync(join(tasksDir, "config-file", "g0", "environment", "note.txt"))).toBe(true);
    // the folder digest is part of the content id: the extra data file makes it another environment
    expect(packageId(again[0] ?? first[0]!)).not.toBe(packageId(first[0]!));
    expect(again.slice(1).map(packageId)).toEqual(first.slice(1).map(packageId));
  });
});

describe("configs/terminal-run.json", () => {
  it("is a valid config: the terminal seeds alone, no designs, room for commands", () => {
    const config = resolveRunConfig({ config: "configs/terminal-run.json" });
    expect(config.terminal).toMatchObject({ seeds: "envs/terminal-seeds", only: true });
    expect(config.designer.designs).toBe(0);
    expect(config.solver.maxTokens).toBeGreaterThanOrEqual(128);
  });

  it("terminal.only without terminal.seeds is refused", () => {
    expect(() => parseConfig({ terminal: { only: true } })).toThrow(/terminal.only needs terminal.seeds/);
  });
});
