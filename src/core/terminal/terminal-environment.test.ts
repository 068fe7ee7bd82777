import { afterAll, describe, expect, it } from "vitest";
import { TerminalJailRuntime } from "../../adapters/terminal/terminal-jail.js";
import { readHarborTask } from "../../adapters/terminal/harbor-task.js";
import type { TerminalTask } from "../../spec/index.js";
import { doNothingPolicy, oraclePolicy, playEpisode, type Policy } from "../rollout/index.js";
import { terminalManifest, TerminalEnvSession } from "./terminal-environment.js";

const runtime = new TerminalJailRuntime();
afterAll(() => runtime.close());

function seed(name: string): TerminalTask {
  const task = readHarborTask(`envs/terminal-seeds/${name}`);
  if ("status" in task) throw new Error(task.message);
  return task;
}

function script(replies: readonly string[]): Policy {
  let turn = 0;
  return { name: "scripted (control-flow test double)", act: async () => ({ text: replies[turn++] ?? "TASK_COMPLETE" }) };
}

describe("terminal environment (real jail, real root)", () => {
  it("the oracle's solve.sh wins, and the tests ran in the root", async () => {
    const task = seed("config-file");
    const session = new TerminalEnvSession(runtime, task);
    const episode = await playEpisode(session, terminalManifest(task), 0, oraclePolicy(session));
    await session.close();
    expect(episode.failure).toBeUndefined();
    expect(episode.won).toBe(true);
    expect(session.verification?.output).toContain("PASS");
  }, 120_000);

  it("an agent that says it is done at once loses", async () => {
    const task = seed("config-file");
    const session = new TerminalEnvSession(runtime, task);
    const episode = await playEpisode(session, terminalManifest(task), 0, script(["TASK_COMPLETE"]));
    await session.close();
    expect(episode.won).toBe(false);
    expect(episode.turns).toHaveLength(1);
    expect(session.verification?.reward).toBe(0);
  }, 120_000);

  it("a reply without a command block is an invalid action and the episode goes on; the shell keeps its directory", async () => {
    const task = seed("config-file");
    const session = new TerminalEnvSession(runtime, task);
    const episode = await playEpisode(session, terminalManifest(task, 4), 0, script(["I would create the file.", "```bash\ncd /app/config\n```", "```bash\npwd\n```", "TASK_COMPLETE"]));
    await session.close();
    expect(episode.turns[0]?.invalidAction).toBe(true);
    expect(episode.turns[2]?.observation).toContain("/app/config\n[exit status 0]");
    expect(episode.won).toBe(false);
  }, 120_000);

  it("do-nothing (empty replies) reaches the turn cap, then the tests run", async () => {
    const task = seed("config-file");
    const session = new TerminalEnvSession(runtime, task, { maxTurns: 2 });
    const episode = await playEpisode(session, terminalManifest(task, 2), 0, doNothingPolicy);
    await session.close();
    expect(episode.turns.every((turn) => turn.invalidAction === true)).toBe(true);
    expect(episode.terminated).toBe(true);
    expect(session.verification?.reward).toBe(0);
    expect(episode.won).toBe(false);
  }, 120_000);
});
