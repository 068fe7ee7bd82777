import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TerminalJailRuntime } from "../adapters/terminal/terminal-jail.js";
import { parseConfig } from "../config/index.js";
import { terminalSeeds } from "./admit-terminal.js";
import { judgeTerminalDesign } from "./design-terminal-command.js";

const runtime = new TerminalJailRuntime();
const scratch = mkdtempSync(join(tmpdir(), "envforge-design-"));
afterAll(async () => {
  await runtime.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("judging a terminal design (recorded real completion, real jail)", () => {
  it("Qwen2.5-Coder-1.5B's design (envforge design terminal, seed 1, design 0) parses, reads as a Harbor task, and its oracle fails: the data file it logs is never created", async () => {
    const completion = readFileSync("fixtures/terminal-designs/qwen2.5-coder-1.5b-seed1-0.txt", "utf8");
    const judged = await judgeTerminalDesign(completion, join(scratch, "0"), { runtime, settings: parseConfig({}).admission, pool: terminalSeeds() });
    expect(judged.admitted).toBeNull();
    expect(judged.verdicts.map((verdict) => verdict.gate)).toEqual(["executable", "deterministic", "oracle"]);
    const last = judged.verdicts.at(-1);
    expect(last?.status === "reject" && last.reason).toBe("oracle_failed");
    expect(JSON.stringify(last)).toContain("no /app/logs/app.log");
  }, 120_000);

  it("a completion without file blocks is a parse rejection and writes nothing", async () => {
    const judged = await judgeTerminalDesign("Sure! Here is a task about logs.", join(scratch, "1"), { runtime, settings: parseConfig({}).admission, pool: [] });
    expect(judged.verdicts).toHaveLength(1);
    expect(judged.verdicts[0]?.gate).toBe("parse");
  });
});
