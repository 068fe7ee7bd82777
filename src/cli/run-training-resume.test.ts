import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { stopReferenceTrainer } from "../adapters/trainer/index.js";
import { freePort } from "../testing/free-port.js";

// End-to-end test of the built CLI training with the real reference trainer on its
// tiny random model (random weights, lossy byte tokenizer: the policy's text is
// noise, so this tests control flow and bookkeeping, not learning).

const BIN = fileURLToPath(new URL("../../bin/envforge.js", import.meta.url));

interface MetricsLine {
  readonly kind: string;
  readonly round?: number;
  readonly policyVersion?: number;
  readonly trainer?: { readonly policyVersion: number; readonly probe?: { readonly deltaFromStart: number } };
}
const metricsOf = (path: string): MetricsLine[] =>
  existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as MetricsLine) : [];

describe("envforge run with the reference trainer", () => {
  const folder = mkdtempSync(join(tmpdir(), "envforge-train-resume-"));
  const out = join(folder, "run");
  afterAll(async () => {
    await stopReferenceTrainer(out);
  });

  it("survives SIGKILL of the run after a training step: no environment, step or metrics line repeated or lost", async () => {
    const config = join(folder, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        rounds: 3,
        plays: 1,
        model: { threads: 1 },
        solver: { environments: 1, maxTurns: 2, maxTokens: 6 },
        designer: { designs: 1, maxTokens: 64 },
        schedule: { designerEvery: 1, designerDelay: 1 },
        trainer: { backend: "reference", model: "tiny-random", port: await freePort(), loraRank: 4, learningRate: 0.01 },
      }),
    );
    const metrics = join(out, "metrics.jsonl");
    const child = spawn("node", [BIN, "run", "--config", config, "--out", out], { stdio: "ignore", detached: true });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      const deadline = Date.now() + 300_000;
      while (!metricsOf(metrics).some((line) => line.kind === "trainer_step") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    }
    const killedAt = metricsOf(metrics).filter((line) => line.kind === "trainer_step").length;
    expect(killedAt).toBeGreaterThanOrEqual(1);
    expect(killedAt).toBeLessThan(3);

    const resumed = spawnSync("node", [BIN, "run", "--resume", "--out", out], { encoding: "utf8", timeout: 400_000 });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/trainer: reference, policy version 3, .*probe logprob/);

    const lines = metricsOf(metrics);
    // one optimiser step per round, versions continuing from the checkpoint, each line once
    expect(lines.filter((line) => line.kind === "trainer_step").map((line) => line.policyVersion)).toEqual([1, 2, 3]);
    expect(lines.filter((line) => line.kind === "round").map((line) => [line.round, line.trainer?.policyVersion])).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(lines.filter((line) => line.kind === "round").every((line) => typeof line.trainer?.probe?.deltaFromStart === "number")).toBe(true);

    const db = new Database(join(out, "envforge.db"), { readonly: true });
    const designs = db.prepare("SELECT round, idx, policy_version AS version, tokens FROM designs ORDER BY round, idx").all() as { round: number; idx: number; version: number; tokens: string | null }[];
    const environments = db.prepare("SELECT id FROM environments").all() as { id: string }[];
    const versions = db.prepare("SELECT round, min(policy_version) AS low, max(policy_version) AS high FROM episodes GROUP BY round ORDER BY round").all();
    const rounds = db.prepare("SELECT status FROM rounds ORDER BY round").all();
    db.close();
    expect(designs.map((row) => [row.round, row.idx])).toEqual([[1, 0], [2, 0], [3, 0]]);
    // the designs were sampled through the trainer: their tokens are stored for the Designer's datums
    expect(designs.every((row) => row.tokens !== null && JSON.parse(row.tokens).completion.length > 0)).toBe(true);
    expect(new Set(environments.map((row) => row.id)).size).toBe(environments.length);
    // round r is played by policy version r − 1
    expect(versions).toEqual([{ round: 1, low: 0, high: 0 }, { round: 2, low: 1, high: 1 }, { round: 3, low: 2, high: 2 }]);
    expect(designs.map((row) => row.version)).toEqual([0, 1, 2]);
    expect(rounds).toEqual([{ status: "done" }, { status: "done" }, { status: "done" }]);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report.map((entry: { trainer: { policyVersion: number } }) => entry.trainer.policyVersion)).toEqual([1, 2, 3]);
  }, 900_000);
});
