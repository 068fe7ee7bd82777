import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { startTestServer } from "../testing/serve-fixtures.js";

/** A real exchange with openenv-core's server (scripts/record-openenv-exchange.py), replayed against envforge's. */
const FIXTURE = JSON.parse(readFileSync(fileURLToPath(new URL("../../fixtures/openenv/openenv-core-exchange.json", import.meta.url)), "utf8")) as {
  http: Record<string, { status: number; body: Record<string, unknown> }>;
  websocket: { sent: string; received: { type: string; data: Record<string, unknown> } }[];
};

/** Our answers to the fixture's frames, in order, on one connection. */
async function replay(url: string, frames: readonly string[]): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const socket = new WebSocket(`${url.replace("http", "ws")}/ws`);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  const answers: { type: string; data: Record<string, unknown> }[] = [];
  for (const frame of frames) {
    const answer = new Promise<string>((resolve) => socket.once("message", (data) => resolve(data.toString())));
    socket.send(frame);
    answers.push(JSON.parse(await answer));
  }
  socket.close();
  return answers;
}

describe("OpenEnv wire format against a recorded openenv-core exchange", () => {
  let test: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    test = await startTestServer({ packages: loadSeedPackages().filter((pkg) => pkg.manifest.name === "number-guess") });
  });
  afterAll(() => test.stop());

  it("answers every recorded WebSocket frame with the same frame type, the same error code, and the same data keys", async () => {
    const ours = await replay(
      test.server.url,
      FIXTURE.websocket.map((entry) => entry.sent),
    );
    for (const [index, recorded] of FIXTURE.websocket.entries()) {
      const answer = ours[index];
      expect(answer?.type, recorded.sent).toBe(recorded.received.type);
      if (recorded.received.type === "error") {
        expect(answer?.data.code, recorded.sent).toBe(recorded.received.data.code);
        expect(typeof answer?.data.message).toBe("string");
      } else {
        expect(Object.keys(answer?.data ?? {}), recorded.sent).toEqual(expect.arrayContaining(Object.keys(recorded.received.data)));
      }
    }
    // the same environment and seed give the same observations through both servers
    expect((ours[0]?.data.observation as { text: string }).text).toBe((FIXTURE.websocket[0]?.received.data.observation as { text: string }).text);
    expect((ours[1]?.data.observation as { text: string }).text).toBe((FIXTURE.websocket[1]?.received.data.observation as { text: string }).text);
    expect(ours[2]?.data).toMatchObject({ step_count: 1 });
  });

  it("answers /health, /metadata, /schema and /reset with OpenEnv's keys", async () => {
    for (const route of ["GET /health", "GET /metadata", "GET /schema"]) {
      const recorded = FIXTURE.http[route];
      const response = await fetch(`${test.server.url}${route.split(" ")[1]}`);
      expect(response.status, route).toBe(recorded?.status);
      expect(Object.keys(await response.json()).sort(), route).toEqual(Object.keys(recorded?.body ?? {}).sort());
    }
    const reset = await (await fetch(`${test.server.url}/reset`, { method: "POST", body: JSON.stringify({ seed: 3 }) })).json();
    expect(Object.keys(reset).sort()).toEqual(Object.keys(FIXTURE.http["POST /reset"]?.body ?? {}).sort());
    expect(reset.observation.text).toBe((FIXTURE.http["POST /reset"]?.body.observation as { text: string }).text);
  });
});
