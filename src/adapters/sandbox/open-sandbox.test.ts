import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { ConfigError, SandboxUnavailableError } from "../../spec/index.js";
import { serveSandboxSettings } from "../../server/serve-sandbox.js";
import { openSandbox } from "./open-sandbox.js";
import type { RemoteSandbox } from "./remote-sandbox.js";
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

  it("opens the remote backend over the configured servers, with the token from the configured variable", async () => {
    const config = parseConfig({ sandbox: { backend: "remote", remote: { urls: ["http://127.0.0.1:9", "http://127.0.0.1:10/"], tokenEnv: "TEST_REMOTE_TOKEN" } } });
    const remote = openSandbox(config.sandbox, undefined, { TEST_REMOTE_TOKEN: "a-token-of-sixteen-or-more" }) as RemoteSandbox;
    expect(remote.name).toBe("remote");
    expect(remote.servers().map((server) => server.url)).toEqual(["http://127.0.0.1:9", "http://127.0.0.1:10/"]);
    await remote.close();
  });

  it("refuses a remote backend without servers, server URLs that are not http roots, and envforge serve over a remote backend", () => {
    expect(() => parseConfig({ sandbox: { backend: "remote" } })).toThrow(/sandbox\.remote\.urls|server URL/);
    expect(() => parseConfig({ sandbox: { backend: "remote", remote: { urls: ["ftp://host"] } } })).toThrow(ConfigError);
    expect(() => parseConfig({ sandbox: { remote: { urls: ["http://host:1/path"] } } })).toThrow(ConfigError);
    expect(() => openSandbox({ ...parseConfig({}).sandbox, backend: "remote" })).toThrow(SandboxUnavailableError);
    expect(() => serveSandboxSettings(parseConfig({ sandbox: { backend: "remote", remote: { urls: ["http://127.0.0.1:1"] } } }))).toThrow(/its own jails/);
  });
});
