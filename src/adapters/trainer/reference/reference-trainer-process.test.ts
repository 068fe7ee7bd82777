import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REFERENCE_TRAINER_FILES, referenceTrainerStatus, stopReferenceTrainer } from "./reference-trainer-process.js";

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
