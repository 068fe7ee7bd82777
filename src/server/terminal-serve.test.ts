import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { TerminalJailRuntime } from "../adapters/terminal/terminal-jail.js";
import { withTerminalRuntime } from "../core/terminal/index.js";
import { testServeSettings } from "../testing/serve-fixtures.js";
import { folderCatalog } from "./catalog.js";
import { EnvironmentServerClient } from "./client.js";
import { startEnvironmentServer, type EnvironmentServer } from "./environment-server.js";

// A terminal task served over OpenEnv's WebSocket wire, on 127.0.0.1: each session owns its root.
const WRITE_CONFIG = "```bash\nprintf '[server]\\nhost = 127.0.0.1\\nport = 8080\\n\\n[logging]\\nlevel = info\\n' > /app/config/app.ini\n```";

describe("envforge serve: a terminal task (real jail)", () => {
  let server: EnvironmentServer;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const catalog = folderCatalog(["envs/terminal-seeds/config-file"]);
    const sandbox = withTerminalRuntime(new BwrapSandbox({ workers: 1 }), new TerminalJailRuntime());
    server = await startEnvironmentServer({ catalog, sandbox, settings: testServeSettings(), tokens: [], log: () => undefined });
    close = async () => {
      await server.close();
      await sandbox.close();
    };
  });
  afterAll(() => close());

  it("plays an episode: the instruction, a command's output, then the tests' reward; two sessions do not share a root", async () => {
    const client = new EnvironmentServerClient({ baseUrl: server.url });
    const first = await client.connect();
    const second = await client.connect();
    try {
      const reset = await first.reset();
      expect(JSON.stringify(reset.observation)).toContain("/app/config/app.ini");
      await second.reset();
      const wrote = await first.step(WRITE_CONFIG);
      expect(wrote.done).toBe(false);
      expect(JSON.stringify(wrote.observation)).toContain("[exit status 0]");
      const elsewhere = await second.step("```bash\ncat /app/config/app.ini\n```");
      expect(JSON.stringify(elsewhere.observation)).toContain("No such file");
      const finished = await first.step("TASK_COMPLETE");
      expect(finished.done).toBe(true);
      expect(finished.reward).toBe(1);
      const gaveUp = await second.step("TASK_COMPLETE");
      expect(gaveUp.reward).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  }, 120_000);
});
