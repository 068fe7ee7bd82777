import { describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "../../spec/index.js";
import { ProcessSandbox, PROCESS_SANDBOX_WARNING } from "./process-sandbox.js";
import { existsSync, readFileSync } from "node:fs";
import { descendantsOf } from "./process-tree.js";
import { programWithStep, sandboxContract } from "./sandbox.contract.js";

describe("ProcessSandbox", () => {
  it("refuses to start without the explicit trusted-code flag", () => {
    expect(() => new ProcessSandbox()).toThrow(SandboxUnavailableError);
    expect(() => new ProcessSandbox({ trustedCode: false })).toThrow(/trustedCode/);
  });

  it("leaves no episode process behind when its zygote is SIGKILLed", async () => {
    const sandbox = new ProcessSandbox({ trustedCode: true, warn: () => undefined });
    try {
      const sessions = await Promise.all([1, 2].map(async () => sandbox.open(programWithStep("        import time\n        time.sleep(60)"))));
      const steps = sessions.map(async (session, index) => {
        if (session.kind !== "ok") throw new Error(session.message);
        expect(await session.value.reset(index)).toEqual({ kind: "ok", value: `seed ${index}` });
        return session.value.step("sleep"); // both episodes now sleep inside environment code
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [zygote] = sandbox.jailProcessIds() as [number];
      const episodes = descendantsOf(zygote).map((entry) => entry.pid);
      expect(episodes.length).toBeGreaterThanOrEqual(2); // the two episodes (and spares)
      process.kill(zygote, "SIGKILL");
      expect((await Promise.all(steps)).map((outcome) => outcome.kind)).toEqual(["crash", "crash"]);
      const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
      for (let wait = 0; wait < 50 && episodes.some(alive); wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(episodes.filter(alive)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it("warns on every start", async () => {
    const warnings: string[] = [];
    for (let run = 0; run < 2; run += 1) await new ProcessSandbox({ trustedCode: true, warn: (message) => warnings.push(message) }).close();
    expect(warnings).toEqual([PROCESS_SANDBOX_WARNING, PROCESS_SANDBOX_WARNING]);
  });
});

sandboxContract("process", (limits) => new ProcessSandbox({ trustedCode: true, limits, warn: () => undefined }));
// every episode served through the zygote, as when all of a jail's lanes are taken
sandboxContract("process, no lanes", (limits) => new ProcessSandbox({ trustedCode: true, limits, lanes: 0, warn: () => undefined }));
