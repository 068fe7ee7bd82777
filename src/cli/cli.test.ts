import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import { resolveOutDir } from "./run-command.js";
import { killWhen } from "../testing/kill-when.js";

// End-to-end tests of the built CLI (npm test builds first) with the real embedded model.

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), "envforge-cli-"));

function writeConfig(folder: string, config: unknown): string {
  const path = join(folder, "config.json");
  writeFileSync(path, JSON.stringify(config));
  return path;
}

// these tests are about the run's control flow, not training: the noop trainer keeps them fast
const SMALL = { rounds: 1, plays: 1, solver: { environments: 1, maxTurns: 2, maxTokens: 16 }, designer: { designs: 3, maxTokens: 96 }, trainer: { backend: "noop" } };

describe("a closed output pipe", () => {
  it("ends the output quietly with the command's exit code (envforge --help | head -1)", () => {
    const result = spawnSync("bash", ["-c", `node ${JSON.stringify(BIN)} evolve --help | head -c 5; exit \${PIPESTATUS[0]}`], { encoding: "utf8" });
    expect(result.stdout).toBe("Usage");
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(result.status).toBe(0);
  }, 60_000);
});

describe("envforge run", () => {
  it("reports a corrupt config by key and allowed values, and creates nothing", () => {
    const folder = scratch();
    const config = writeConfig(folder, { sandbox: { backend: "docker" }, rounds: 0 });
    const result = spawnSync("node", [BIN, "run", "--config", config, "--out", join(folder, "run")], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/sandbox\.backend.*"bwrap"/s);
    expect(result.stderr).toMatch(/rounds/);
    expect(existsSync(join(folder, "run"))).toBe(false);
  });

  it("refuses a trainer config that cannot work before it writes the run's folder", () => {
    const folder = scratch();
    const cases = [
      { trainer: { backend: "reference", engine: { kind: "vllm" } }, error: /trainer\.engine\.kind "vllm" needs trainer\.engine\.url/ },
      { trainer: { backend: "reference", engine: { kind: "sglang", url: "http://127.0.0.1:1", adapterDir: "relative" } }, error: /needs trainer\.engine\.adapterDir, an absolute folder/ },
      { trainer: { backend: "tinker" }, error: /trainer\.backend "tinker" needs trainer\.url/ },
      { model: { spec: "/no/such/model.gguf" }, trainer: { backend: "reference" }, error: /model\.spec: \/no\/such\/model\.gguf does not exist/ },
    ];
    for (const [index, { error, ...config }] of cases.entries()) {
      const out = join(folder, `run-${index}`);
      const result = spawnSync("node", [BIN, "run", "--config", writeConfig(folder, config), "--out", out], { encoding: "utf8" });
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toMatch(error);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("names new run directories by UTC time and refuses --resume when no run exists", () => {
    const config = parseConfig({});
    expect(resolveOutDir(config, false, new Date("2026-11-29T08:01:02.345Z"))).toBe(join("runs", "run-20261129T080102Z"));
    expect(resolveOutDir({ ...config, out: "mine" }, true)).toBe("mine");
    const folder = scratch();
    const result = spawnSync("node", [BIN, "run", "--resume"], { encoding: "utf8", cwd: folder });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--resume found no run in runs\//);
  });

  it("finishes a round with a missing model file, reporting the reason instead of crashing", () => {
    const folder = scratch();
    const out = join(folder, "run");
    const config = writeConfig(folder, { ...SMALL, designer: { designs: 1 } });
    const result = spawnSync("node", [BIN, "run", "--config", config, "--out", out, "--model", join(folder, "missing.gguf")], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/round 1: 1 design proposed, 0 admitted \(rejected: model_error 1\)/);
    expect(result.stdout).toMatch(/The model answered no Designer prompt/);
    expect(result.stdout).toMatch(/missing\.gguf not found/);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report).toHaveLength(1);
    expect(report[0].rejected).toEqual({ model_error: 1 });
    expect(Object.keys(report[0].errors).join("\n")).toMatch(/model_unavailable/);
  });

  it("resumes with the run's stored config, and flags given now override it", () => {
    const folder = scratch();
    const out = join(folder, "run");
    const config = writeConfig(folder, { ...SMALL, designer: { designs: 0 } });
    expect(spawnSync("node", [BIN, "run", "--config", config, "--out", out], { encoding: "utf8" }).status).toBe(0);
    const resumed = spawnSync("node", [BIN, "run", "--resume", "--out", out, "--rounds", "2"], { encoding: "utf8" });
    expect(resumed.status, resumed.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report.map((entry: { proposed: number; solver: { episodes: number } }) => [entry.proposed, entry.solver.episodes])).toEqual([[0, 2], [0, 2]]);
    // a finished run: --resume says so and exits 0 without starting anything (a reference trainer on a
    // missing model would be refused with exit 2 if it were started or even checked)
    const metricsBefore = readFileSync(join(out, "metrics.jsonl"), "utf8");
    const reference = join(folder, "reference.json");
    writeFileSync(reference, JSON.stringify({ trainer: { backend: "reference" } }));
    const again = spawnSync("node", [BIN, "run", "--resume", "--out", out, "--config", reference, "--model", join(folder, "missing.gguf")], { encoding: "utf8" });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`envforge: ${out} is complete: 2 round(s) done, rounds is 1; nothing to run (add rounds with --resume --rounds N)`);
    expect(again.stdout).toMatch(/round 2: 0 designs proposed/);
    expect(readFileSync(join(out, "metrics.jsonl"), "utf8")).toBe(metricsBefore);
    const typo = spawnSync("node", [BIN, "run", "--resume", "--out", join(folder, "runn")], { encoding: "utf8" });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/holds no run/);
    const empty = join(folder, "empty");
    mkdirSync(empty);
    writeFileSync(join(empty, "envforge.db"), "");
    const emptyStore = spawnSync("node", [BIN, "run", "--resume", "--out", empty], { encoding: "utf8" });
    expect(emptyStore.status).toBe(2);
    expect(emptyStore.stderr).toMatch(/holds no run/);
    expect(existsSync(join(empty, "report.json"))).toBe(false);
  }, 600_000);

  it("a run that stops on an error mid-run prints what it did, what is stored and the exact --resume command", () => {
    const folder = scratch();
    const out = join(folder, "run");
    // a folder where report.json goes: round 1 is stored, then writing the report fails
    mkdirSync(join(out, "report.json"), { recursive: true });
    const config = writeConfig(folder, { ...SMALL, rounds: 2, designer: { designs: 0 } });
    const result = spawnSync("node", [BIN, "run", "--config", config, "--out", out], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stdout).toMatch(/round 1: 0 designs proposed/);
    expect(result.stderr).toContain(`envforge: the run stopped after round 1 on the error below. Stored in ${join(out, "envforge.db")}: 1 of 2 round(s) done`);
    expect(result.stderr).toContain(`Continue with: ./bin/envforge.js run --resume --out ${out}`);
    expect(result.stderr).toMatch(/envforge: cannot write .*report\.json: /);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // a typed error, not a stack trace
    // a refusal before any round (the folder holds a run, no --resume) is no stopped run: no summary, no resume hint
    rmSync(join(out, "report.json"), { recursive: true, force: true });
    const again = spawnSync("node", [BIN, "run", "--config", config, "--out", out], { encoding: "utf8" });
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already holds a run; pass --resume/);
    expect(again.stderr).not.toContain("the run stopped");
  }, 300_000);

  it("exits 2 for bad flags and an unknown model spec", () => {
    for (const args of [["--rounds", "abc"], ["--bogus"], ["--model", "foo"], ["--plays", "1e3"], ["--plays", "0x10"], ["--plays", " 3"], ["--plays", "2.5"]]) {
      const result = spawnSync("node", [BIN, "run", ...args, "--out", join(scratch(), "run")], { encoding: "utf8" });
      expect(result.status, args.join(" ")).toBe(2);
    }
  });

  it("does not blame the config file for a bad flag value", () => {
    const folder = scratch();
    const config = writeConfig(folder, SMALL);
    const result = spawnSync("node", [BIN, "run", "--config", config, "--plays", "1025", "--out", join(folder, "run")], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`invalid configuration (${config} and the command-line flags):`);
    expect(result.stderr).toMatch(/plays: Too big/);
    const flagsOnly = spawnSync("node", [BIN, "run", "--plays", "1025", "--out", join(folder, "run")], { encoding: "utf8" });
    expect(flagsOnly.stderr).toContain("invalid configuration (command-line flags over the defaults):");
  });

  it("survives SIGKILL mid-round and resumes without losing or duplicating work", async () => {
    const folder = scratch();
    const out = join(folder, "run");
    const config = writeConfig(folder, SMALL);
    const database = join(out, "envforge.db");
    const designsStored = () => {
      if (!existsSync(database)) return 0;
      const db = new Database(database, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare("SELECT count(*) AS n FROM designs").get() as { n: number }).n;
      } catch {
        return 0;
      } finally {
        db.close();
      }
    };
    await killWhen([BIN, "run", "--config", config, "--out", out], () => designsStored() >= 1);
    const before = designsStored();
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(3);

    const refused = spawnSync("node", [BIN, "run", "--config", config, "--out", out], { encoding: "utf8" });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--resume/);

    // generous: on a loaded 2-core machine the two remaining designs took over 300 s
    const resumed = spawnSync("node", [BIN, "run", "--config", config, "--out", out, "--resume"], { encoding: "utf8", timeout: 480_000 });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming/);
    const db = new Database(database, { readonly: true });
    const designs = db.prepare("SELECT idx FROM designs WHERE round = 1 ORDER BY idx").all() as { idx: number }[];
    const environments = db.prepare("SELECT id FROM environments").all() as { id: string }[];
    const rounds = db.prepare("SELECT status FROM rounds").all() as { status: string }[];
    db.close();
    expect(designs.map((row) => row.idx)).toEqual([0, 1, 2]);
    expect(new Set(environments.map((row) => row.id)).size).toBe(environments.length);
    expect(rounds).toEqual([{ status: "done" }]);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report).toHaveLength(1);
    expect(report[0].proposed).toBe(3);
  }, 900_000);
});

describe("envforge trainer conformance", () => {
  it("reports an unreachable server as JSON with --json, exit 2", () => {
    const result = spawnSync("node", [BIN, "trainer", "conformance", "--url", "http://127.0.0.1:1", "--json"], { encoding: "utf8" });
    expect(result.status).toBe(2);
    const report = JSON.parse(result.stdout) as { passed: number; failed: number; checks: unknown[]; error: { code: string; message: string } };
    expect(report).toMatchObject({ passed: 0, failed: 0, checks: [] });
    expect(report.error.code).toBe("trainer_unavailable");
    expect(report.error.message).toMatch(/cannot reach the trainer at http:\/\/127\.0\.0\.1:1/);
  });
});
