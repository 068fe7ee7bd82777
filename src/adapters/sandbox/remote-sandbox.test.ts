import { afterAll, describe, expect, it } from "vitest";
import { EnvironmentCatalog } from "../../server/catalog.js";
import { startEnvironmentServer, type EnvironmentServer } from "../../server/environment-server.js";
import { RemoteSandboxUnavailableError, type EnvProgram, type EnvSession, type Sandbox, type SandboxOutcome } from "../../spec/index.js";
import { freePort } from "../../testing/free-port.js";
import { testServeSettings } from "../../testing/serve-fixtures.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";
import type { SandboxLimits } from "./limits.js";
import { RemoteSandbox, type RemoteSandboxOptions } from "./remote-sandbox.js";
import type { RemoteSession } from "./remote-session.js";
import { programWithStep, sandboxContract, unwrap } from "./sandbox.contract.js";

/** A real `envforge serve` (the server `envforge serve` starts) on a free loopback port, with a bwrap sandbox of `limits`. */
async function startServer(limits: Partial<SandboxLimits> = {}, tokens: readonly string[] = []): Promise<{ server: EnvironmentServer; stop: () => Promise<void> }> {
  const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 3000, ...limits }, programLingerMs: 60_000 });
  const server = await startEnvironmentServer({ catalog: new EnvironmentCatalog([]), sandbox, settings: testServeSettings({ port: await freePort() }), tokens, log: () => undefined });
  return {
    server,
    stop: async () => {
      await server.close();
      await sandbox.close();
    },
  };
}

/** A remote sandbox over its own server with `limits`; closing it stops the server and its jails. */
async function remoteOverServer(limits: Partial<SandboxLimits>): Promise<Sandbox> {
  const { server, stop } = await startServer(limits);
  const remote = new RemoteSandbox({ urls: [server.url] });
  return {
    name: remote.name,
    open: (program) => remote.open(program),
    close: async () => {
      await remote.close();
      await stop();
    },
  };
}

// the shared contract, hostile suite included, run through a real server: the server's limits are
// the factory's, and its jails are children of this process, so the stray-process checks see them
sandboxContract("remote", remoteOverServer);


/** Counts to a step's position; `info.n` is the running total. */
const COUNTER: EnvProgram = {
  envSource: [
    "import random",
    "class Counter:",
    "    def reset(self, seed):",
    "        self.total = seed",
    "        return f'start {seed}'",
    "    def step(self, action):",
    "        self.total += len(action)",
    "        return (f'{self.total} {random.random():.9f}', 0.25, self.total > 40, False, {'n': self.total})",
    "",
  ].join("\n"),
  oracleSource: "calls = []\ndef act(env, observation):\n    calls.append(observation)\n    return f'oracle {len(calls)} {env.total}'\n",
  rewardRange: [0, 1],
};

async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

describe("RemoteSandbox", () => {
  const stops: Array<() => Promise<void>> = [];
  const start = async (limits: Partial<SandboxLimits> = {}, tokens: readonly string[] = []) => {
    const started = await startServer(limits, tokens);
    stops.push(started.stop);
    return started;
  };
  const remotes: RemoteSandbox[] = [];
  const remote = (options: RemoteSandboxOptions) => {
    const sandbox = new RemoteSandbox(options);
    remotes.push(sandbox);
    return sandbox;
  };
  afterAll(async () => {
    await Promise.all(remotes.map((each) => each.close()));
    await Promise.all(stops.map((stop) => stop()));
  });

  it("opens each session on the least loaded server, and counts sessions in flight per server", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const sandbox = remote({ urls: [a.server.url, b.server.url] });
    // opened at the same time: each counts on its server from the moment it is placed
    const sessions = (await Promise.all([0, 1, 2, 3].map(() => sandbox.open(programWithStep("        pass"))))).map(unwrap);
    expect(sandbox.servers()).toEqual([
      { url: a.server.url, inFlight: 2 },
      { url: b.server.url, inFlight: 2 },
    ]);
    expect(a.server.stats().sandbox).toBe(2);
    expect(b.server.stats().sandbox).toBe(2);
    await sessions[0]?.close();
    await sessions[1]?.close();
    const next = unwrap(await sandbox.open(programWithStep("        pass")));
    expect(sandbox.servers().map((server) => server.inFlight)).toEqual([2, 1]); // the freed slots were on a
    await Promise.all([...sessions, next].map((session) => session.close()));
    expect(sandbox.servers().map((server) => server.inFlight)).toEqual([0, 0]);
  });

  it("moves a session whose server goes away mid-episode to another server, replays its steps and oracle calls, and the caller sees one continuous session", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const sandbox = remote({ urls: [a.server.url, b.server.url] });
    const reference = unwrap(await sandbox.open(COUNTER));
    const referenceTranscript = [unwrap(await reference.reset(5)), unwrap(await reference.step("ab")), unwrap(await reference.oracleAction("x")), unwrap(await reference.step("cde")), unwrap(await reference.step("f"))];
    await reference.close();

    const session = unwrap(await sandbox.open(COUNTER));
    const onA = sandbox.servers()[0]?.inFlight === 1;
    const transcript: unknown[] = [unwrap(await session.reset(5)), unwrap(await session.step("ab")), unwrap(await session.oracleAction("x"))];
    await (onA ? a : b).server.close(); // the session's server goes away (its connections are closed)
    transcript.push(unwrap(await session.step("cde")), unwrap(await session.step("f")));
    expect(transcript).toEqual(referenceTranscript);
    expect(sandbox.servers().map((server) => server.inFlight)).toEqual(onA ? [0, 1] : [1, 0]);
    // steps only: replayed in one run_actions frame
    const batch = unwrap(await (session.runActions as NonNullable<EnvSession["runActions"]>)(7, ["ab", "cd"]));
    expect(batch.initialObservation).toBe("start 7");
    await session.close();
  });

  it("ends the episode with crash when the replay on the new server differs (a program that is not deterministic)", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const sandbox = remote({ urls: [a.server.url, b.server.url] });
    const session = unwrap(await sandbox.open(programWithStep("        import time\n        return (str(time.time_ns()), 0.0, False, False, {})")));
    unwrap(await session.reset(1));
    unwrap(await session.step("a"));
    await (sandbox.servers()[0]?.inFlight === 1 ? a : b).server.close();
    const outcome = await session.step("b");
    expect(outcome.kind).toBe("crash");
    if (outcome.kind !== "ok") expect(outcome.message).toContain("not deterministic");
    expect((await session.step("c")).kind).toBe("crash"); // the episode stays over
    expect(unwrap(await session.reset(2))).toBe("seed 2"); // the next episode is clean
    await session.close();
  });

  it("throws RemoteSandboxUnavailableError naming every URL when no server is up, without hanging", async () => {
    const urls = [await closedPortUrl(), await closedPortUrl()];
    const warnings: string[] = [];
    const sandbox = remote({ urls, connectTimeoutMs: 2000, warn: (message) => warnings.push(message) });
    const started = Date.now();
    const failure = await sandbox.open(programWithStep("        pass")).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RemoteSandboxUnavailableError);
    expect((failure as RemoteSandboxUnavailableError).servers.map((server) => server.url)).toEqual(urls);
    expect((failure as RemoteSandboxUnavailableError).message).toContain(urls[0]);
    expect((failure as RemoteSandboxUnavailableError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    // one line per server; the last one down does not promise a replay elsewhere
    expect(warnings.map((warning) => warning.replace(/^sandbox server \S+ failed \(.+\); /, ""))).toEqual([
      "it is skipped for 30 s and its episodes are replayed on the other servers",
      `it is skipped for 30 s and no other server is usable now: until one answers, episodes fail with "no sandbox server is usable"; check that envforge serve runs at ${urls[1]} (sandbox.remote.urls) with the token this run sends`,
    ]);
    // the error says what to do, not only that nothing answered
    expect((failure as RemoteSandboxUnavailableError).message).toMatch(/Start envforge serve at these URLs .*sandbox\.remote\.urls.*cool-down/);
    // within the cool-down they are not even tried
    const again = await sandbox.open(programWithStep("        pass")).catch((error: unknown) => error);
    expect((again as RemoteSandboxUnavailableError).servers[0]?.reason).toMatch(/cooling down/);
  });

  it("throws RemoteSandboxUnavailableError from a step when the last server dies mid-episode", async () => {
    const only = await start();
    const sandbox = remote({ urls: [only.server.url] });
    const session = unwrap(await sandbox.open(programWithStep("        pass")));
    unwrap(await session.reset(1));
    await only.server.close();
    await expect(session.step("a")).rejects.toBeInstanceOf(RemoteSandboxUnavailableError);
    await session.close();
  });

  it("skips a failed server for the cool-down and uses it again afterwards", async () => {
    const good = await start();
    const clock = { now: 0 };
    const downUrl = await closedPortUrl();
    const sandbox = remote({ urls: [downUrl, good.server.url], cooldownMs: 10_000, now: () => clock.now });
    const first = unwrap(await sandbox.open(programWithStep("        pass"))); // down is tried first (least loaded, first in order), then skipped
    await first.close();
    clock.now = 5000;
    const second = unwrap(await sandbox.open(programWithStep("        pass")));
    expect(sandbox.servers()).toEqual([
      { url: downUrl, inFlight: 0 },
      { url: good.server.url, inFlight: 1 },
    ]);
    await second.close();
    clock.now = 20_000; // cooled down: tried again (and fails again, so the session lands on the good server)
    const third = unwrap(await sandbox.open(programWithStep("        pass")));
    await third.close();
  });

  it("sends the token; a server that refuses it is reported as unauthorized", async () => {
    const token = "remote-sandbox-test-token-0123456789";
    const guarded = await start({}, [token]);
    const withToken = remote({ urls: [guarded.server.url], token });
    const session = unwrap(await withToken.open(programWithStep("        pass")));
    expect(unwrap(await session.reset(3))).toBe("seed 3");
    await session.close();
    const failure = await remote({ urls: [guarded.server.url], token: "wrong-token-wrong-token-wrong" })
      .open(programWithStep("        pass"))
      .catch((error: unknown) => error);
    expect((failure as RemoteSandboxUnavailableError).servers[0]?.reason).toMatch(/unauthorized/);
  });

  it("answers a program over the server's frame limit with protocol_violation, not a server failure", async () => {
    const small = await startServer();
    stops.push(small.stop);
    const sandbox = remote({ urls: [small.server.url] });
    const outcome = await sandbox.open({ envSource: `# ${"x".repeat(17 * 1024 * 1024)}\n`, oracleSource: null });
    expect(outcome.kind).toBe("protocol_violation");
    expect((unwrap(await sandbox.open(programWithStep("        pass"))) as RemoteSession).server).toBe(small.server.url); // the server is still in use
  });
});
