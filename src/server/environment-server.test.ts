import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { packageId } from "../spec/index.js";
import { startTestServer } from "../testing/serve-fixtures.js";
import { EnvironmentServerClient } from "./client.js";
import { ObservationSchema, StateSchema } from "./openenv-wire.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

describe("environment server: OpenEnv wire and /v1 routes", () => {
  let test: TestServer;
  let client: EnvironmentServerClient;
  beforeAll(async () => {
    test = await startTestServer();
    client = new EnvironmentServerClient({ baseUrl: test.server.url });
  });
  afterAll(() => test.stop());

  it("plays a seed environment over /ws with its oracle's actions: observation frames, Gymnasium flags in metadata, state", async () => {
    const session = await client.connect();
    const reset = await session.reset({ env: "number-guess", seed: 3, episodeId: "episode-1" });
    expect(reset.done).toBe(false);
    expect(reset.reward).toBe(0);
    expect(ObservationSchema.parse(reset.observation).metadata).toMatchObject({ env_name: "number-guess", episode_id: "episode-1", seed: 3, step: 0 });
    const secret = /from 1 to (\d+)/.exec(reset.observation.text);
    let low = 1;
    let high = Number(secret?.[1]);
    let last = reset;
    while (!last.done) {
      const guess = Math.floor((low + high) / 2);
      last = await session.step(`Guess: ${guess}`);
      if (last.observation.text.includes("higher")) low = guess + 1;
      if (last.observation.text.includes("lower")) high = guess - 1;
    }
    expect(last.reward).toBe(1);
    expect(last.observation.metadata).toMatchObject({ terminated: true, truncated: false, return: 1, won: true });
    const state = StateSchema.parse(await session.state());
    expect(state).toMatchObject({ episode_id: "episode-1", env_name: "number-guess", seed: 3, done: true, terminated: true, total_reward: 1 });
    expect(state.step_count).toBeGreaterThan(0);
    await session.close();
  });

  it("maps truncation onto done with metadata.truncated, and caps an episode at the manifest's maxTurns", async () => {
    const session = await client.connect();
    await session.reset({ env: "echo", seed: 1 });
    await session.step("a");
    await session.step("b");
    const third = await session.step("c");
    expect(third).toMatchObject({ done: true, reward: 0 });
    expect(third.observation.metadata).toMatchObject({ terminated: false, truncated: true, return: 0, won: false, info: { turn: 3 } });
    await session.close();
  });

  it("gives the same transcript for the same seed in two sessions, and a different one for another seed", async () => {
    const play = async (seed: number) => {
      const session = await client.connect();
      const reset = await session.reset({ env: "code-breaker", seed });
      const step = await session.step("1234");
      await session.close();
      return [reset.observation.text, step.observation.text];
    };
    expect(await play(11)).toEqual(await play(11));
  });

  it("holds HTTP episodes: /reset answers an episode id, /step and /state continue it", async () => {
    const reset = await (await fetch(`${test.server.url}/reset`, { method: "POST", body: JSON.stringify({ env: "echo", seed: 5 }) })).json();
    expect(reset).toMatchObject({ reward: 0, done: false, observation: { text: "hello 5" } });
    const episodeId = reset.observation.metadata.episode_id as string;
    const step = await (await fetch(`${test.server.url}/step`, { method: "POST", body: JSON.stringify({ action: { message: "win" }, episode_id: episodeId }) })).json();
    expect(step).toMatchObject({ reward: 1, done: true, observation: { text: "you win" } });
    const state = await (await fetch(`${test.server.url}/state?episode_id=${episodeId}`)).json();
    expect(state).toMatchObject({ episode_id: episodeId, step_count: 1, done: true });
  });

  it("answers /health, /metadata and /schema in OpenEnv's shapes", async () => {
    expect(await (await fetch(`${test.server.url}/health`)).json()).toEqual({ status: "healthy" });
    const metadata = await (await fetch(`${test.server.url}/metadata`)).json();
    expect(Object.keys(metadata).sort()).toEqual(["author", "description", "documentation_url", "name", "readme_content", "version"]);
    const one = await (await fetch(`${test.server.url}/metadata?env=knapsack`)).json();
    expect(one.name).toBe("knapsack");
    const schema = await (await fetch(`${test.server.url}/schema`)).json();
    expect(Object.keys(schema).sort()).toEqual(["action", "observation", "state"]);
    expect(schema.action.required).toEqual(["message"]);
  });

  it("lists environments with filters and paging, and returns one with its package", async () => {
    const all = await client.listEnvironments();
    expect(all.total).toBe(14);
    const single = await client.listEnvironments({ interaction: "single-turn" });
    expect(single.environments.every((environment) => environment.interaction === "single-turn")).toBe(true);
    expect(single.total).toBe(6);
    const page = await client.listEnvironments({ limit: 2, offset: 1 });
    expect(page.environments.map((environment) => environment.id)).toEqual(all.environments.slice(1, 3).map((environment) => environment.id));
    const bySkill = await client.listEnvironments({ skill: "binary search" });
    expect(bySkill.environments.map((environment) => environment.name)).toEqual(["number-guess"]);
    const seed = loadSeedPackages().find((pkg) => pkg.manifest.name === "knapsack");
    if (seed === undefined) throw new Error("knapsack seed missing");
    const knapsack = await client.environment(packageId(seed));
    expect(knapsack.name).toBe("knapsack");
    expect(knapsack.package.files["env.py"]).toBe(seed.envSource);
    expect((await client.environment("knapsack")).id).toBe(packageId(seed));
    expect(await client.frontier()).toEqual({ scheduled: false, environments: [] });
    const bad = await fetch(`${test.server.url}/v1/envs?interaction=sideways`);
    expect(bad.status).toBe(422);
  });

  it("plays whole episodes from action lists in one batch, with returns and failures per episode", async () => {
    const episodes = await client.playEpisodes([
      { env: "echo", seed: 1, actions: ["a", "win", "ignored after the end"] },
      { env: "echo", seed: 2, actions: ["a"] },
      { env: "crash", seed: 1, actions: ["one", "two"] },
      { env: "answer", seed: 4, actions: [] },
    ]);
    expect(episodes[0]).toMatchObject({ envName: "echo", initialObservation: "hello 1", return: 1, won: true, terminated: true });
    expect(episodes[0]?.steps.map((step) => step.action)).toEqual(["a", "win"]);
    expect(episodes[1]).toMatchObject({ return: 0, won: false, terminated: false, truncated: false });
    expect(episodes[2]?.failure?.kind).toBe("crash");
    expect(episodes[2]?.steps).toHaveLength(1); // the step before the crash is kept
    expect(episodes[3]).toMatchObject({ initialObservation: "What is 6 x 7? (instance 4)", steps: [] });
  });

  it("verifies answers to single-turn instances in bulk, and refuses a multi-turn environment", async () => {
    const results = await client.verify([
      { env: "answer", seed: 1, answer: "42" },
      { env: "answer", seed: 2, answer: "41" },
    ]);
    expect(results.map((result) => [result.correct, result.reward, result.observation])).toEqual([
      [true, 1, "right"],
      [false, 0, "wrong"],
    ]);
    await expect(client.verify([{ env: "echo", seed: 1, answer: "x" }])).rejects.toMatchObject({ problem: "not_supported" });
  });

  it("drains on request: no new sessions or episodes (draining), running episodes finish, then every connection closes", async () => {
    const draining = await startTestServer();
    const drainClient = new EnvironmentServerClient({ baseUrl: draining.server.url });
    const open = await drainClient.connect();
    await open.reset({ env: "echo", seed: 1 });
    const started = Date.now();
    const drained = draining.server.drain(20_000);
    await expect(drainClient.connect()).rejects.toMatchObject({ problem: "draining" });
    expect(await drainClient.health()).toBe("degraded");
    // an open session's episode goes on, but no new episode starts (a new user's trial: resets kept a draining server up)
    await expect(open.reset({ env: "echo" })).rejects.toMatchObject({ problem: "draining" });
    await expect(drainClient.playEpisodes([{ env: "echo", seed: 1, actions: ["win"] }])).rejects.toMatchObject({ problem: "draining" });
    expect((await open.step("win")).done).toBe(true);
    await drained;
    expect(Date.now() - started).toBeLessThan(5000); // it did not wait for the timeout once the episode was over
    await expect(open.state()).rejects.toMatchObject({ problem: "server_error" });
    expect(draining.server.stats().sessions).toBe(0);
    await draining.sandbox.close();
  });
});
