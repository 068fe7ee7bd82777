import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OPENENV_DRIVER_PATH, openEnvSitePackages } from "./openenv-session.js";

const scratch = mkdtempSync(join(tmpdir(), "envforge-openenv-driver-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs the driver on a copy of lights_out with openenv 0.10's modules, outside the jail (its
 * protocol only; the jail is tested with admission), and returns its answers.
 */
function drive(requests: readonly Record<string, unknown>[], edit?: (folder: string) => void): Record<string, unknown>[] {
  const root = mkdtempSync(join(scratch, "case-"));
  cpSync("fixtures/openenv-packages/lights_out", join(root, "lights_out"), { recursive: true });
  edit?.(join(root, "lights_out"));
  const site = openEnvSitePackages() as string;
  const input = requests.map((request) => Buffer.from(JSON.stringify(request)).toString("base64")).join("\n");
  const run = spawnSync("/usr/bin/python3", [OPENENV_DRIVER_PATH, "lights_out", "server.lights_out_environment", "LightsOutEnvironment"], {
    input: `${input}\n`,
    env: { PATH: "/usr/bin:/bin", PYTHONPATH: `${site}:${root}`, PYTHONDONTWRITEBYTECODE: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return run.stdout.trim().split("\n").map((line) => {
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(15_000);
    return JSON.parse(line) as Record<string, unknown>;
  });
}

describe("the OpenEnv driver's protocol (openenv 0.10's modules, outside the jail)", () => {
  it("loads, resets by seed, steps with a text reply, answers the oracle, and refuses a reply that does not validate without a step", () => {
    const [load, reset, step, invalid, oracle] = drive([{ op: "load" }, { op: "reset", seed: 3 }, { op: "step", action: "9" }, { op: "step", action: '{"position": 5, "extra": 1}' }, { op: "oracle", observation: "" }]);
    expect(load).toEqual({ ok: true, format: "Reply with the position (the position to toggle, 0 to 6).", oracle: true });
    expect(reset).toMatchObject({ ok: true, done: false, reward: 0, invalid: false });
    expect(String(reset?.observation)).toMatch(/^Toggling position i/);
    expect(step).toMatchObject({ ok: true, invalid: true, reward: 0 });
    expect(String(step?.observation)).toContain("That is not a position from 0 to 6");
    expect(invalid).toMatchObject({ ok: true, invalid: true });
    expect(String(invalid?.observation)).toMatch(/^invalid action: .*ValidationError/);
    expect(oracle).toMatchObject({ ok: true });
    expect(String(oracle?.action)).toMatch(/^[0-6]$/);
  });

  it("cuts an observation that would not fit the jail's 16,000-byte output in the middle, and says so", () => {
    const [, reset] = drive([{ op: "load" }, { op: "reset", seed: 1 }], (folder) => {
      const path = join(folder, "server", "lights_out_environment.py");
      writeFileSync(path, readFileSync(path, "utf8").replace('intro = "Toggling', 'intro = "x" * 100000 + "Toggling'));
    });
    expect(reset).toMatchObject({ ok: true });
    expect(String(reset?.observation)).toMatch(/\[\.\.\. \d+ characters cut from this observation \.\.\.\]/);
    expect(String(reset?.observation)).toMatch(/Turns left: 12\.$/);
  });

  it("names the stage that failed: a server that does not import", () => {
    const [load, reset] = drive([{ op: "load" }, { op: "reset", seed: 1 }], (folder) => writeFileSync(join(folder, "server", "app.py"), "import no_such_module\n"));
    expect(load).toMatchObject({ ok: false, stage: "server", error: "server/app.py does not import: ModuleNotFoundError: No module named 'no_such_module'" });
    expect(reset).toMatchObject({ ok: false, error: "the environment is not loaded" });
  });
});
