import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { importCommand } from "./import-command.js";

// `envforge import` through its command function, on the real rlve-gym (./scripts/setup.sh).

const out = mkdtempSync(join(tmpdir(), "envforge-import-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("envforge import", () => {
  it("refuses a source it does not know (exit 2)", async () => {
    await expect(importCommand("gymnasium", { out })).rejects.toThrow(ConfigError);
    await expect(importCommand("gymnasium", { out })).rejects.toThrow(/sources are rlve/);
  });

  it("refuses unknown RLVE names (exit 2)", async () => {
    await expect(importCommand("rlve", { out, only: "Multiplication,NoSuchEnvironment" })).rejects.toThrow(/unknown RLVE environment: NoSuchEnvironment/);
  });

  it("imports one environment and prints the report as JSON (exit 0)", async () => {
    let printed = "";
    const code = await importCommand("rlve", { out, only: "rlve-multiplication", levels: 2, concurrency: 1, json: true }, (text) => {
      printed += text;
    });
    expect(code).toBe(0);
    const report = JSON.parse(printed) as { imported: { name: string; levels: number }[]; skipped: unknown[]; considered: number };
    expect(report).toMatchObject({ considered: 1, skipped: [], imported: [{ name: "rlve-multiplication", levels: 2 }] });
  });

  it("says so with exit 1 when nothing could be imported", async () => {
    let printed = "";
    expect(await importCommand("rlve", { out, only: "MinimumSpanningTree", levels: 1 }, (text) => (printed += text))).toBe(1);
    expect(printed).toMatch(/imported 0 of 1 .*\n.*\n  not imported, needs_third_party_module: 1/);
  });
});
