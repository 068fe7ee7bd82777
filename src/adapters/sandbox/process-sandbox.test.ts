import { describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "../../spec/index.js";
import { ProcessSandbox, PROCESS_SANDBOX_WARNING } from "./process-sandbox.js";
import { sandboxContract } from "./sandbox.contract.js";

describe("ProcessSandbox", () => {
  it("refuses to start without the explicit trusted-code flag", () => {
    expect(() => new ProcessSandbox()).toThrow(SandboxUnavailableError);
    expect(() => new ProcessSandbox({ trustedCode: false })).toThrow(/trustedCode/);
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
