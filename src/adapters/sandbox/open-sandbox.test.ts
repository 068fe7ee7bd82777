import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { SandboxUnavailableError } from "../../spec/index.js";
import { openSandbox } from "./open-sandbox.js";
import type { ZygoteSandbox } from "./zygote-sandbox.js";

describe("openSandbox", () => {
  it("opens the configured backend with the configured limits", async () => {
    const bwrap = openSandbox(parseConfig({ sandbox: { cpuSeconds: 5, workers: 2, jailMemoryMb: 512, jailPids: 99, jailCpus: 1.5 } }).sandbox);
    expect(bwrap.name).toBe("bwrap");
    expect((bwrap as ZygoteSandbox).limits).toMatchObject({ cpuSeconds: 5, jailMemoryBytes: 512 * 1024 * 1024, jailPids: 99, jailCpus: 1.5 });
    const warnings: string[] = [];
    const process = openSandbox(parseConfig({ sandbox: { backend: "process", trustedCode: true } }).sandbox, (message) => warnings.push(message));
    expect(process.name).toBe("process");
    expect(warnings).toHaveLength(1);
    await Promise.all([bwrap.close(), process.close()]);
  });

  it("refuses the process backend unless the code is declared trusted", () => {
    expect(() => openSandbox(parseConfig({ sandbox: { backend: "process" } }).sandbox)).toThrow(SandboxUnavailableError);
  });
});
