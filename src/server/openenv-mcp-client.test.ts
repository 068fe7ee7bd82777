import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPackageFolder } from "../adapters/package-files/index.js";
import { startTestServer, testEnvironments } from "../testing/serve-fixtures.js";

// Plays /mcp with OpenEnv 0.10's own MCP client (openenv.core.mcp_client.MCPToolClient, pinned in
// scripts/openenv10-requirements.txt, installed into .venv-openenv10 by scripts/setup.sh), on 127.0.0.1 only.

const run = promisify(execFile);
const PYTHON = fileURLToPath(new URL("../../.venv-openenv10/bin/python", import.meta.url));
const DRIVER = fileURLToPath(new URL("./openenv_mcp_drive.py", import.meta.url));
const LEVEL_SUM = fileURLToPath(new URL("../../fixtures/levelled-envs/level-sum", import.meta.url));
const TOKEN = "openenv-mcp-test-token-0123456";

describe.skipIf(process.env.ENVFORGE_SKIP_OPENENV === "1")("MCP endpoint with OpenEnv 0.10's MCPToolClient", () => {
  let test: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    test = await startTestServer({ tokens: [TOKEN], packages: [...testEnvironments(), loadPackageFolder(LEVEL_SUM)] });
  });
  afterAll(() => test.stop());

  it("lists the tools, plays an episode, refuses as tool errors, keeps sessions apart and closes them", async () => {
    if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run ./scripts/setup.sh (it installs openenv 0.10 into .venv-openenv10)`);
    const { stdout } = await run(PYTHON, [DRIVER, test.server.url, TOKEN], { timeout: 90_000 });
    const report = JSON.parse(stdout) as Record<string, any>;
    expect(report.tools).toEqual(["list_environments", "reset", "state", "step"]);
    expect(Object.keys(report.reset_schema.properties).sort()).toEqual(["env", "level", "seed"]);
    expect(report.before_reset).toMatchObject({ isError: true, structuredContent: { reason: "step_before_reset" } });
    expect(report.episode.first).toMatchObject({ content: [{ type: "text", text: "hello 9" }], structuredContent: { done: false, observation: { metadata: { seed: 9 } } } });
    expect(report.episode.steps[0].structuredContent).toMatchObject({ reward: 0, done: false, observation: { text: "echo hi" } });
    expect(report.episode.steps[1].structuredContent).toMatchObject({ reward: 1, done: true, observation: { metadata: { won: true } } });
    expect(report.state.structuredContent).toMatchObject({ env_name: "echo", step_count: 2, done: true, total_reward: 1 });
    expect(report.out_of_range).toMatchObject({ isError: true, structuredContent: { message: expect.stringMatching(/level 99 is outside level-sum's levels: 0\.\.3/) } });
    expect(report.unknown_tool).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringMatching(/no_such_tool not found/) }] });
    expect(report.shared_state.structuredContent).toMatchObject({ env_name: "echo", seed: 4, step_count: 0, done: false });
    expect(report.shared_step.structuredContent).toMatchObject({ observation: { text: "echo after a websocket reset", metadata: { seed: 4, step: 1 } } });
    expect(report.parallel).toEqual(["echo from 1", "echo from 2"]);
    expect(report.no_token).toMatch(/401/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(test.server.stats().mcp).toBe(0);
  });
});

describe.skipIf(process.env.ENVFORGE_SKIP_OPENENV === "1")("OpenEnv 0.10's runtime check of a running server", () => {
  let test: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    test = await startTestServer({ packages: testEnvironments() }); // no token: the checker sends none (loopback only)
  });
  afterAll(() => test.stop());

  it("`openenv validate --url` passes every criterion: OpenAPI version and paths, health, metadata, schema, /mcp, simulation mode", async () => {
    const openenv = fileURLToPath(new URL("../../.venv-openenv10/bin/openenv", import.meta.url));
    if (!existsSync(openenv)) throw new Error(`${openenv} is missing: run ./scripts/setup.sh (it installs openenv 0.10 into .venv-openenv10)`);
    const { stdout } = await run(openenv, ["validate", "--url", test.server.url, "--json"], { timeout: 90_000 });
    const report = JSON.parse(stdout) as { passed: boolean; mode: string; criteria: { id: string; passed: boolean }[] };
    expect(report.criteria.map((criterion) => criterion.id).sort()).toEqual(["health_endpoint", "mcp_endpoint", "metadata_endpoint", "mode_endpoint_consistency", "openapi_version_available", "schema_endpoint"]);
    expect(report.criteria.filter((criterion) => !criterion.passed)).toEqual([]);
    expect(report).toMatchObject({ passed: true, mode: "simulation" });
  });
});
