import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPackageFolders } from "../adapters/package-files/index.js";
import { ServeRequestError } from "../spec/index.js";
import { ECHO_ENV, startTestServer, testPackage } from "../testing/serve-fixtures.js";
import { EnvironmentServerClient, type OpenEnvSessionClient } from "./client.js";
import { StateSchema } from "./openenv-wire.js";

// Levels on the server, on 127.0.0.1 only: fixtures/levelled-envs holds level-sum (four levels; a
// level-L instance adds L + 2 numbers) and one-level-product (no levels: one level, 0).
const LEVELLED = fileURLToPath(new URL("../../fixtures/levelled-envs", import.meta.url));

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

async function refusal(promise: Promise<unknown>): Promise<ServeRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServeRequestError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

/** The numbers of a level-sum observation. */
function terms(observation: string): number[] {
  const listed = /Add these numbers: ([\d +]+)\./.exec(observation)?.[1] ?? "";
  return listed.split(" + ").map(Number);
}

const post = (url: string, body: unknown) => fetch(url, { method: "POST", body: JSON.stringify(body) });

describe("environment server: levels", () => {
  let test: TestServer;
  let client: EnvironmentServerClient;
  beforeAll(async () => {
    test = await startTestServer({ packages: [...loadPackageFolders(LEVELLED), testPackage("echo", ECHO_ENV)] });
    client = new EnvironmentServerClient({ baseUrl: test.server.url });
  });
  afterAll(() => test.stop());

  describe("bad levels", () => {
    let session: OpenEnvSessionClient;
    beforeAll(async () => {
      session = await client.connect();
    });
    afterAll(() => session.close());

    it("over WebSocket: -1 and 99 are VALIDATION_ERROR frames naming the range, \"x\" and 1.5 VALIDATION_ERROR naming the field; the session lives on", async () => {
      for (const level of [-1, 99]) {
        const frame = await session.raw(JSON.stringify({ type: "reset", data: { env: "level-sum", seed: 1, level } }));
        expect(frame).toEqual({ type: "error", data: { code: "VALIDATION_ERROR", reason: "invalid_request", message: `level ${level} is outside level-sum's levels: 0..3` } });
      }
      for (const level of ["x", 1.5]) {
        const frame = (await session.raw(JSON.stringify({ type: "reset", data: { env: "level-sum", seed: 1, level } }))) as { type: string; data: { code: string; message: string } };
        expect(frame).toMatchObject({ type: "error", data: { code: "VALIDATION_ERROR", reason: "invalid_request" } });
        expect(frame.data.message).toMatch(/^invalid reset data: level: /);
      }
      // a family of one level has level 0 only
      const one = await refusal(session.reset({ env: "one-level-product", seed: 1, level: 1 }));
      expect(one).toMatchObject({ problem: "invalid_request", message: "level 1 is outside one-level-product's levels: it declares one level, 0" });
      expect((await session.reset({ env: "level-sum", seed: 1, level: 3 })).observation.text).toMatch(/^Level 3\./);
    });

    it("over HTTP: /reset answers 422 naming the range, and a refused first reset holds no slot", async () => {
      for (const level of [-1, 99]) {
        const response = await post(`${test.server.url}/reset`, { env: "level-sum", seed: 1, level });
        expect(response.status).toBe(422);
        expect(await response.json()).toEqual({ detail: `level ${level} is outside level-sum's levels: 0..3`, code: "VALIDATION_ERROR", reason: "invalid_request" });
      }
      const typed = await post(`${test.server.url}/reset`, { env: "level-sum", seed: 1, level: "x" });
      expect(typed.status).toBe(422);
      expect(((await typed.json()) as { detail: string }).detail).toMatch(/^invalid reset request: level: /);
      expect((await client.stats()).http).toBe(0);
    });

    it("in the /v1 batch routes: the whole request is refused with 422 naming the range, before any episode plays", async () => {
      for (const level of [-1, 4, 99]) {
        const episodes = await post(`${test.server.url}/v1/episodes`, { episodes: [{ env: "echo", seed: 1, actions: ["win"] }, { env: "level-sum", seed: 1, level, actions: ["3"] }] });
        expect(episodes.status).toBe(422);
        expect(await episodes.json()).toMatchObject({ detail: `level ${level} is outside level-sum's levels: 0..3`, reason: "invalid_request" });
        const verify = await post(`${test.server.url}/v1/verify`, { answers: [{ env: "level-sum", seed: 1, level, answer: "3" }] });
        expect(verify.status).toBe(422);
        expect(await verify.json()).toMatchObject({ detail: `level ${level} is outside level-sum's levels: 0..3` });
      }
      const typed = await post(`${test.server.url}/v1/episodes`, { episodes: [{ env: "level-sum", seed: 1, level: "x", actions: [] }] });
      expect(typed.status).toBe(422);
      expect(((await typed.json()) as { detail: string }).detail).toMatch(/level: /);
      await expect(client.verify([{ env: "one-level-product", seed: 1, level: 2, answer: "4" }])).rejects.toMatchObject({ problem: "invalid_request", message: "level 2 is outside one-level-product's levels: it declares one level, 0" });
    });
  });

  it("a WebSocket reset at a level builds that level's instance (another than level 0's for the same seed), in metadata and state", async () => {
    const session = await client.connect();
    const level0 = await session.reset({ env: "level-sum", seed: 7 });
    expect(level0.observation.text).toMatch(/^Level 0\./);
    expect(level0.observation.metadata).toMatchObject({ seed: 7, level: 0 });
    expect(terms(level0.observation.text)).toHaveLength(2);
    const level2 = await session.reset({ env: "level-sum", seed: 7, level: 2 });
    expect(level2.observation.text).toMatch(/^Level 2\./);
    expect(level2.observation.text).not.toBe(level0.observation.text);
    expect(terms(level2.observation.text)).toHaveLength(4);
    expect(level2.observation.metadata).toMatchObject({ seed: 7, level: 2 });
    expect(StateSchema.parse(await session.state())).toMatchObject({ seed: 7, level: 2, done: false });
    const answered = await session.step(String(terms(level2.observation.text).reduce((sum, term) => sum + term, 0)));
    expect(answered).toMatchObject({ reward: 1, done: true, observation: { metadata: { level: 2, won: true } } });
    // explicit level 0 is the default; a null level too (OpenEnv clients send null for "none")
    expect((await session.reset({ env: "level-sum", seed: 7, level: 0 })).observation.text).toBe(level0.observation.text);
    const nullLevel = (await session.raw(JSON.stringify({ type: "reset", data: { env: "level-sum", seed: 7, level: null } }))) as { data: { observation: { text: string } } };
    expect(nullLevel.data.observation.text).toBe(level0.observation.text);
    // a family of one level takes level 0 and reports none
    const product = await session.reset({ env: "one-level-product", seed: 7, level: 0 });
    expect(product.observation.text).toMatch(/^Multiply: /);
    expect(product.observation.metadata).not.toHaveProperty("level");
    expect((await session.state()).level).toBeNull();
    await session.close();
  });

  it("an HTTP /reset takes a level too", async () => {
    const reset = (await (await post(`${test.server.url}/reset`, { env: "level-sum", seed: 7, level: 3 })).json()) as { observation: { text: string; metadata: { level: number; episode_id: string } } };
    expect(reset.observation.text).toMatch(/^Level 3\./);
    expect(terms(reset.observation.text)).toHaveLength(5);
    expect(reset.observation.metadata.level).toBe(3);
    const state = await (await fetch(`${test.server.url}/state?episode_id=${reset.observation.metadata.episode_id}`)).json();
    expect(state).toMatchObject({ seed: 7, level: 3 });
  });

  it("the /v1 batch routes play and verify at the levels asked, and record them", async () => {
    const played = await client.playEpisodes([0, 1, 2, 3].map((level) => ({ env: "level-sum", seed: 11, level, actions: ["0"] })));
    expect(played.map((episode) => [episode.level, terms(episode.initialObservation).length])).toEqual([
      [0, 2],
      [1, 3],
      [2, 4],
      [3, 5],
    ]);
    const [defaulted] = await client.playEpisodes([{ env: "level-sum", seed: 11, actions: [] }]);
    expect(defaulted).toMatchObject({ level: 0, initialObservation: played[0]?.initialObservation });
    const [oneLevel] = await client.playEpisodes([{ env: "one-level-product", seed: 11, level: 0, actions: [] }]);
    expect(oneLevel).not.toHaveProperty("level");
    const sums = played.map((episode) => String(terms(episode.initialObservation).reduce((sum, term) => sum + term, 0)));
    const verified = await client.verify(sums.map((answer, level) => ({ env: "level-sum", seed: 11, level, answer })));
    expect(verified.map((result) => [result.level, result.correct])).toEqual([
      [0, true],
      [1, true],
      [2, true],
      [3, true],
    ]);
    // level 3's sum is not level 0's answer (the instances differ)
    expect((await client.verify([{ env: "level-sum", seed: 11, level: 0, answer: sums[3] as string }]))[0]?.correct).toBe(sums[0] === sums[3]);
  });

  it("the catalog and /metadata expose each environment's levels", async () => {
    const { environments } = await client.listEnvironments();
    const levels = Object.fromEntries(environments.map((environment) => [environment.name, environment.levels]));
    expect(levels).toEqual({
      "level-sum": { count: 4, description: "a level-L instance adds L + 2 numbers (2 at level 0, 5 at level 3)" },
      "one-level-product": { count: 1, description: null },
      echo: { count: 1, description: null },
    });
    expect((await client.environment("level-sum")).levels.count).toBe(4);
    const metadata = await (await fetch(`${test.server.url}/metadata?env=level-sum`)).json();
    expect(Object.keys(metadata).sort()).toEqual(["author", "description", "documentation_url", "name", "readme_content", "version"]);
    expect(metadata.description).toContain('Levels: 4 (reset data {"level": 0..3}; default 0): a level-L instance adds L + 2 numbers');
    expect((await (await fetch(`${test.server.url}/metadata?env=echo`)).json()).description).not.toContain("Levels");
  });
});
