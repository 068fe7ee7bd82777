import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { copyRunFixture } from "../testing/dashboard-fixtures.js";
import { readEventFile } from "../testing/tensorboard-events.js";

const CLI = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "envforge-export-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const envforge = (...args: string[]) => spawnSync(process.execPath, [CLI, "export", "tensorboard", ...args], { encoding: "utf8", cwd: root });

describe("envforge export tensorboard", () => {
  it("writes the event file of a run and prints it as JSON, or as text with the tensorboard command", () => {
    const run = copyRunFixture(join(root, "run-a"));
    const json = envforge("--out", run, "--json");
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { eventFile: string; logDir: string; tags: string[]; points: number; replaced: number };
    expect(result.logDir).toBe(join(run, "tensorboard"));
    expect(result.tags).toContain("solver/winRateNoHint");
    expect(readEventFile(result.eventFile).scalars).toHaveLength(result.points);

    const text = envforge("--out", "run-a", "--to", "logs");
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^envforge export tensorboard: \d+ scalars under \d+ tags \(2 rounds, 0 trainer steps\) -> logs\/run-a\/events\.out\.tfevents\.\S+\.envforge$/m);
    expect(text.stdout).toMatch(/^skipped: .*null values, 4 labels or non-numeric values$/m);
    expect(text.stdout).toMatch(/^view: tensorboard --logdir logs$/m);
    expect(existsSync(join(root, "logs", "run-a"))).toBe(true);
  });

  it("exits 2 with a message for a missing run folder, and needs --out", () => {
    const missing = envforge("--out", join(root, "nowhere"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^envforge: no run folder at .*nowhere/);
    const bare = envforge();
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("--out");
  });
});
