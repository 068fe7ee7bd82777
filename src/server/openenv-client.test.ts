import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPackageFolder, loadSeedPackages } from "../adapters/package-files/index.js";
import { startTestServer, testEnvironments } from "../testing/serve-fixtures.js";

// Drives the server with OpenEnv's real clients, on 127.0.0.1 only: openenv-core 0.3.0 (pinned in
// scripts/openenv-requirements.txt, in .venv-openenv) and openenv 0.10.0, OpenEnv's current package
// (pinned in scripts/openenv10-requirements.txt, in .venv-openenv10); scripts/setup.sh installs both.

const run = promisify(execFile);
const CLIENTS = [
  { name: "openenv-core 0.3.0", venv: ".venv-openenv" },
  { name: "openenv 0.10.0", venv: ".venv-openenv10" },
] as const;
const DRIVER = fileURLToPath(new URL("./openenv_client_drive.py", import.meta.url));
const LEVEL_SUM = fileURLToPath(new URL("../../fixtures/levelled-envs/level-sum", import.meta.url));
const skipped = process.env.ENVFORGE_SKIP_OPENENV === "1";

describe.skipIf(skipped).each(CLIENTS)("environment server with $name's own client", ({ venv }) => {
  const python = fileURLToPath(new URL(`../../${venv}/bin/python`, import.meta.url));
  const drive = async (url: string, token?: string): Promise<Record<string, unknown>> => {
    if (!existsSync(python)) throw new Error(`${python} is missing: run ./scripts/setup.sh (it installs OpenEnv's clients into ${venv})`);
    const { stdout } = await run(python, [DRIVER, url, ...(token === undefined ? [] : [token])], { timeout: 60_000 });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  let test: Awaited<ReturnType<typeof startTestServer>>;
  const token = "openenv-client-test-token-0123";
  beforeAll(async () => {
    test = await startTestServer({ tokens: [token], packages: [...testEnvironments(), ...loadSeedPackages(), loadPackageFolder(LEVEL_SUM)] });
  });
  afterAll(() => test.stop());

  it("GenericEnvClient and a typed EnvClient reset, step and read state; errors arrive as the client's typed server errors", async () => {
    const report = await drive(test.server.url, token);
    expect(report.reset).toMatchObject({ reward: 0, done: false, observation: { metadata: { env_name: "number-guess", seed: 3, step: 0 } } });
    const steps = report.steps as { text: string; reward: number; done: boolean }[];
    expect(steps.at(-1)).toMatchObject({ reward: 1, done: true });
    expect(steps.slice(0, -1).every((step) => step.reward === 0 && !step.done)).toBe(true);
    expect(report.last_metadata).toMatchObject({ terminated: true, truncated: false, won: true, return: 1 });
    expect(report.state).toMatchObject({ env_name: "number-guess", seed: 3, done: true, step_count: steps.length });
    expect(report.step_after_done).toMatch(/RuntimeError: Server error: .*episode is over.*\(code: SESSION_ERROR\)/);
    expect(report.unknown_env).toMatch(/\(code: VALIDATION_ERROR\)/);
    expect(report.bad_action).toMatch(/\(code: VALIDATION_ERROR\)/);
    expect(report.after_errors).toBe(1);
    expect(report.levelled).toMatchObject({ level: 2, state_level: 2, text: expect.stringMatching(/^Level 2\. Add these numbers: \d( \+ \d){3}\./) });
    expect(report.level_out_of_range).toMatch(/level 99 is outside level-sum's levels: 0\.\.3.*\(code: VALIDATION_ERROR\)/);
    expect(report.typed).toEqual({ first: "hello 9", second: "echo hi", turn: 1 });
    const [first, second] = report.same_seed as string[];
    expect(first).toMatch(/\d/);
    expect(second).toBe(first);
    expect((report.concurrent as { texts: string[] }).texts).toEqual(Array.from({ length: 64 }, (_, index) => `echo from ${index}`));
  });

  it("without the token the client cannot connect", async () => {
    await expect(drive(test.server.url)).rejects.toThrow(/Failed to connect|401/);
  });
});
