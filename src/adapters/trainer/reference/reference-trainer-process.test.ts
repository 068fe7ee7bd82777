import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REFERENCE_TRAINER_DIR, REFERENCE_TRAINER_FILES, referenceTrainerStatus, startReferenceTrainer, stopReferenceTrainer, TINY_RANDOM_MODEL } from "./reference-trainer-process.js";

describe("reference trainer process control with a stale state file", () => {
  it("never signals a process that is not the reference trainer (a reused pid)", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "envforge-trainer-stale-"));
    const bystander = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      writeFileSync(join(runDir, REFERENCE_TRAINER_FILES.state), JSON.stringify({ pid: bystander.pid, url: "http://127.0.0.1:9", model: "embedded" }));
      expect((await referenceTrainerStatus(runDir)).alive).toBe(false);
      expect(await stopReferenceTrainer(runDir)).toBe(false);
      expect(bystander.exitCode).toBeNull();
      expect(() => process.kill(bystander.pid as number, 0)).not.toThrow();
      expect(existsSync(join(runDir, REFERENCE_TRAINER_FILES.state))).toBe(false);
    } finally {
      bystander.kill("SIGKILL");
    }
  });
});

describe("reference trainer stop while another run starts in the same folder", () => {
  it("removes the state file only while it still names the trainer it stopped", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "envforge-trainer-restart-"));
    const statePath = join(runDir, REFERENCE_TRAINER_FILES.state);
    const next = { pid: 999_999, url: "http://127.0.0.1:9", model: "embedded" };
    // a stand-in trainer ("envforge_trainer" in its command line): on SIGTERM it writes the state of the run that
    // starts next in this folder, then exits, as a new run's start does while the old run's stop still waits
    const stopping = [
      "import json, signal, sys, time",
      "def stop(*_):",
      `    open(sys.argv[1], "w").write(json.dumps(${JSON.stringify(next)}))`,
      "    sys.exit(0)",
      "signal.signal(signal.SIGTERM, stop)",
      "print('ready', flush=True)",
      "time.sleep(30)",
    ].join("\n");
    const trainer = spawn("python3", ["-c", stopping, statePath, "envforge_trainer"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      await new Promise((resolve) => trainer.stdout.once("data", resolve));
      writeFileSync(statePath, JSON.stringify({ pid: trainer.pid, url: "http://127.0.0.1:9", model: "embedded" }));
      expect(await stopReferenceTrainer(runDir)).toBe(true);
      expect(JSON.parse(readFileSync(statePath, "utf8"))).toEqual(next);
      // with no newer run, the state file goes
      rmSync(statePath);
      const plain = spawn("python3", ["-c", "import time; print('ready', flush=True); time.sleep(30)", "envforge_trainer"], { stdio: ["ignore", "pipe", "ignore"] });
      await new Promise((resolve) => plain.stdout.once("data", resolve));
      writeFileSync(statePath, JSON.stringify({ pid: plain.pid, url: "http://127.0.0.1:9", model: "embedded" }));
      expect(await stopReferenceTrainer(runDir)).toBe(true);
      expect(existsSync(statePath)).toBe(false);
    } finally {
      trainer.kill("SIGKILL");
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});

// a new user's quick start found another run's trainer on the default port and used it for 30 minutes
describe.skipIf(!existsSync(join(REFERENCE_TRAINER_DIR, ".venv/bin/python")))("reference trainer start on a taken port", () => {
  it("starts its own trainer on a free port instead of trusting whatever answers the health check there", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "envforge-trainer-port-"));
    // a foreign process holding the port and answering the health check, as another trainer would
    const foreign = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"status": "ok"}');
    });
    const taken = await new Promise<number>((resolve) => foreign.listen(0, "127.0.0.1", () => resolve((foreign.address() as { port: number }).port)));
    try {
      const state = await startReferenceTrainer({ runDir, model: TINY_RANDOM_MODEL, port: taken, startTimeoutMs: 120_000 });
      expect(new URL(state.url).port).not.toBe(String(taken));
      const status = await referenceTrainerStatus(runDir);
      expect(status).toMatchObject({ alive: true, healthy: true });
      expect(status.state?.pid).toBe(state.pid);
    } finally {
      await stopReferenceTrainer(runDir);
      foreign.close();
      rmSync(runDir, { recursive: true, force: true });
    }
  }, 180_000);
});
