import { describe, expect, it } from "vitest";
import { ServeRequestError, type EnvSession, type Sandbox } from "../spec/index.js";
import { servedEntries, testPackage, ECHO_ENV } from "../testing/serve-fixtures.js";
import { EnvironmentCatalog } from "./catalog.js";
import { ServedSession } from "./served-session.js";
import { SessionRegistry } from "./session-registry.js";

/** A sandbox whose sessions echo, in-process: the registry's bookkeeping is under test here, not the jails. */
class EchoSandbox implements Sandbox {
  readonly name = "echo";
  closed = 0;
  async open() {
    const session: EnvSession = {
      reset: async (seed) => ({ kind: "ok", value: `seed ${seed}` }),
      step: async (action) => ({ kind: "ok", value: { observation: String(action), reward: 0, terminated: action === "end", truncated: false, info: {} } }),
      oracleAction: async () => ({ kind: "ok", value: "x" }),
      close: async () => {
        this.closed += 1;
      },
    };
    return { kind: "ok" as const, value: session };
  }
  async close() {}
}

function registry(capacity: number, clock: { now: number }) {
  const sandbox = new EchoSandbox();
  const catalog = new EnvironmentCatalog(servedEntries([testPackage("echo", ECHO_ENV)]));
  const dependencies = { catalog, sandbox, maxActionBytes: 1024, randomSeed: () => 7, newId: () => "episode" };
  return { sandbox, registry: new SessionRegistry({ capacity, idleTimeoutMs: 1000, now: () => clock.now, create: (id) => new ServedSession(id, dependencies) }) };
}

describe("SessionRegistry", () => {
  it("refuses one session over capacity, but evicts an idle finished HTTP session to make room", async () => {
    const clock = { now: 0 };
    const { registry: sessions } = registry(2, clock);
    sessions.open("ws-1", "websocket");
    const http = sessions.open("http-1", "http");
    expect(() => sessions.open("ws-2", "websocket")).toThrow(ServeRequestError);
    await http.reset({});
    expect(() => sessions.open("ws-2", "websocket")).toThrow(/capacity/); // its episode is still under way
    await http.step({ message: "end" });
    sessions.open("ws-2", "websocket"); // the finished HTTP episode made room
    expect(sessions.counts()).toEqual({ websocket: 2, http: 0, mcp: 0, sandbox: 0 });
  });

  it("expires sessions idle past the timeout (not ones touched since), tells their transport, and closes them", async () => {
    const clock = { now: 0 };
    const { registry: sessions } = registry(10, clock);
    const expired: string[] = [];
    sessions.open("a", "websocket", (session) => expired.push(session.id));
    sessions.open("b", "websocket", (session) => expired.push(session.id));
    clock.now = 900;
    sessions.touch("b");
    clock.now = 1500;
    expect(await sessions.expireIdle()).toBe(1);
    expect(expired).toEqual(["a"]);
    expect(sessions.touch("a")).toBeUndefined();
    expect(sessions.touch("b")).toBeDefined();
  });

  it("refuses new sessions once draining, and reports when every episode is over", async () => {
    const clock = { now: 0 };
    const { registry: sessions, sandbox } = registry(10, clock);
    const session = sessions.open("a", "websocket");
    await session.reset({});
    sessions.startDrain();
    expect(() => sessions.open("b", "websocket")).toThrow(/shutting down/);
    expect(sessions.allIdle()).toBe(false);
    await session.step({ message: "end" });
    expect(sessions.allIdle()).toBe(true);
    await sessions.closeAll();
    expect(sessions.size).toBe(0);
    expect(sandbox.closed).toBeGreaterThan(0);
  });
});
