import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { playEpisodeJobs, type EpisodeJob, type Policy } from "../../core/rollout/index.js";
import type { EnvProgram, EnvSession, Sandbox } from "../../spec/index.js";
import { freePort } from "../../testing/free-port.js";
import { testPackage } from "../../testing/serve-fixtures.js";
import { startServeProcess, type ServeProcess } from "../../testing/serve-process.js";
import { descendantsOf } from "./process-tree.js";
import { RemoteSandbox } from "./remote-sandbox.js";
import type { RemoteSession } from "./remote-session.js";

// The kill test: two `envforge serve` processes (the built CLI) on loopback, a run of episodes
// through the remote backend, one server SIGKILLed in the middle of it.

/** Ten slow steps (0.1 s each) whose observations depend on the seed, the actions and the seeded random state. */
const SLOW_ENV = [
  "import random, time",
  "class SlowCounter:",
  "    def reset(self, seed):",
  "        self.total = seed",
  "        self.turns = 0",
  "        return f'start {seed} {random.random():.9f}'",
  "    def step(self, action):",
  "        time.sleep(0.1)",
  "        self.turns += 1",
  "        self.total += len(action) * self.turns",
  "        done = self.turns >= 10",
  "        return (f'{self.total} {random.random():.9f}', 0.1, done, False, {'turns': self.turns})",
  "",
].join("\n");

const PACKAGE = testPackage("slow-counter", SLOW_ENV, { maxTurns: 10, rewardRange: [0, 1], passThreshold: 1 });
const PROGRAM: EnvProgram = { envSource: PACKAGE.envSource, oracleSource: null, rewardRange: PACKAGE.manifest.rewardRange };

/** The same actions on every run: `move-<turn>-<seed>`. */
function scripted(seed: number): Policy {
  return { name: "scripted", act: async ({ turns }) => ({ text: `move-${turns.length}-${"x".repeat(seed % 3)}` }) };
}

const jobs: EpisodeJob[] = Array.from({ length: 8 }, (_, seed) => ({ program: PROGRAM, manifest: PACKAGE.manifest, seed, policy: () => scripted(seed) }));

/** Where each session is and how far its episode got, observed from outside. */
interface Watched {
  readonly session: RemoteSession;
  stepsSinceReset: number;
  over: boolean;
}

/** A sandbox that passes every call on to `remote` and watches each session's episode. */
function watching(remote: RemoteSandbox, watched: Watched[]): Sandbox {
  return {
    name: remote.name,
    close: () => remote.close(),
    open: async (program) => {
      const opened = await remote.open(program);
      if (opened.kind !== "ok") return opened;
      const inner = opened.value as RemoteSession;
      const entry: Watched = { session: inner, stepsSinceReset: 0, over: true };
      watched.push(entry);
      const session: EnvSession = {
        reset: async (seed) => {
          entry.stepsSinceReset = 0;
          entry.over = false;
          return inner.reset(seed);
        },
        step: async (action) => {
          const outcome = await inner.step(action);
          entry.stepsSinceReset += 1;
          entry.over = outcome.kind !== "ok" || outcome.value.terminated || outcome.value.truncated;
          return outcome;
        },
        oracleAction: (observation) => inner.oracleAction(observation),
        close: () => inner.close(),
      };
      return { kind: "ok", value: session };
    },
  };
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));

describe("remote sandbox backend: a server SIGKILLed during a run", () => {
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    await Promise.all(servers.map((server) => server.exited));
  });

  it("completes every episode exactly once, with the results one server gives, and leaves no process behind", async () => {
    const start = async () => {
      const server = startServeProcess(["--port", String(await freePort()), "--capacity", "16"], { ENVFORGE_SERVE_TOKEN: "" });
      servers.push(server);
      return server;
    };
    const [survivor, victim] = await Promise.all([start(), start()]);
    const [survivorUrl, victimUrl] = await Promise.all([survivor.url, victim.url]);

    // the reference: the same jobs on one server
    const single = new RemoteSandbox({ urls: [survivorUrl] });
    const reference = await playEpisodeJobs(single, jobs, { concurrency: 4 });
    await single.close();
    expect(reference.every((outcome) => outcome.kind === "ok" && outcome.value.turns.length === 10 && outcome.value.failure === undefined)).toBe(true);

    const warnings: string[] = [];
    const remote = new RemoteSandbox({ urls: [survivorUrl, victimUrl], heartbeatMs: 1000, warn: (message) => warnings.push(message) });
    const watched: Watched[] = [];
    const completions: number[] = [];
    const run = playEpisodeJobs(watching(remote, watched), jobs, { concurrency: 4, onEpisode: (index) => completions.push(index) });

    // kill the victim while one of its sessions is in the middle of an episode
    let midEpisode: Watched | undefined;
    for (let wait = 0; wait < 400 && midEpisode === undefined; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      midEpisode = watched.find((entry) => entry.session.server === victimUrl && !entry.over && entry.stepsSinceReset >= 2);
    }
    expect(midEpisode, "a session of the victim server mid-episode").toBeDefined();
    const victimProcesses = descendantsOf(victim.child.pid as number).map((entry) => entry.pid);
    expect(victimProcesses.length).toBeGreaterThan(0); // its jails
    victim.child.kill("SIGKILL");
    const outcomes = await run;
    expect(await victim.exited).toBeNull();

    expect(midEpisode?.session.server === null || midEpisode?.session.server === survivorUrl).toBe(true); // it moved
    expect(outcomes).toEqual(reference); // same seeds, same actions: the same episodes, as one server plays them
    expect([...completions].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]); // each exactly once
    // the user is told once, naming the server, although several sessions lost it
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^sandbox server ${victimUrl.replace(/[.:/]/g, "\\$&")} failed \\(.+\\); it is skipped for 30 s and its episodes are replayed on the other servers$`));
    await remote.close();
    expect(remote.servers()).toEqual([
      { url: survivorUrl, inFlight: 0 },
      { url: victimUrl, inFlight: 0 },
    ]);

    for (let wait = 0; wait < 100 && victimProcesses.some(alive); wait += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(victimProcesses.filter(alive)).toEqual([]); // the killed server's jails died with it
    survivor.child.kill("SIGTERM");
    expect(await survivor.exited).toBe(0);
    expect(descendantsOf(process.pid).filter((entry) => !entry.commandLine.includes("vitest"))).toEqual([]);
  });
});
