import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, EnvManifestSchema, type EnvPackage, type EnvSession, type StepResult } from "../../spec/index.js";
import { loadPackageFolder } from "../package-files/index.js";
import { BwrapSandbox } from "../sandbox/index.js";
import { readRlveCatalogue, RLVE_SETUP_COMMAND } from "./rlve-catalogue.js";
import { importRlve, resolveRlveIdentifiers, RLVE_REPORT_FILE, type RlveImportReport } from "./rlve-import.js";
import { rlvePackageName } from "./rlve-package.js";

// The real rlve-gym 0.0.1 (./scripts/setup.sh installs it), the real
// importer and the real bubblewrap sandbox: three RLVE environments end to end, and two that
// cannot be imported (one needs networkx, one stores no reference answer).

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 20_000 } });
const out = mkdtempSync(join(tmpdir(), "envforge-rlve-"));
afterAll(async () => {
  await sandbox.close();
  rmSync(out, { recursive: true, force: true });
});

/** Per environment: a readable reply that is wrong, built from the oracle's winning reply. */
const WRONG: Readonly<Record<string, (answer: string) => string>> = {
  // the product plus one
  Multiplication: (answer) => `<answer>${Number(/<answer>(\d+)<\/answer>/.exec(answer)?.[1]) + 1}</answer>`,
  // the right final state of the A::B program with two more tokens
  ABProgramSimulation: (answer) => answer.replace("</answer>", " B# B#</answer>"),
  // one swap of position 0 with itself: the string stays as it was, or one swap too many
  BinaryAlternation: () => "<answer>0 0</answer>",
};
const CHOSEN = Object.keys(WRONG);
const LEVELS = 3;

let report: RlveImportReport;
const packages = new Map<string, EnvPackage>();

beforeAll(async () => {
  report = await importRlve({ sandbox, out, only: [...CHOSEN, "MinimumSpanningTree", "rlve-axis-k-center"], levels: LEVELS, now: () => new Date("2026-12-01T00:00:00.000Z") });
  for (const entry of report.imported) packages.set(entry.identifier, loadPackageFolder(entry.folder));
});

async function play(session: EnvSession, seed: number, level: number, reply: (observation: string) => Promise<string>): Promise<{ observation: string; step: StepResult }> {
  const reset = await session.reset(seed, level);
  if (reset.kind !== "ok") throw new Error(`reset(${seed}, ${level}): ${reset.message}`);
  const step = await session.step(await reply(reset.value));
  if (step.kind !== "ok") throw new Error(`step at level ${level}: ${step.message}`);
  return { observation: reset.value, step: step.value };
}

describe("envforge import rlve (real rlve-gym, real sandbox)", () => {
  it("imports the three chosen environments at every level asked for and leaves out the two it cannot run", () => {
    expect(report.version).toBe("0.0.1");
    expect(report.registered).toBe(400);
    expect(report.imported.map((entry) => [entry.identifier, entry.levels])).toEqual([...CHOSEN].sort().map((identifier) => [identifier, LEVELS]));
    expect(Object.fromEntries(report.skipped.map((skip) => [skip.identifier, skip.reason]))).toEqual({ MinimumSpanningTree: "needs_third_party_module", Axis_KCenter: "no_reference_answer" });
    expect(report.skipped.find((skip) => skip.identifier === "MinimumSpanningTree")?.message).toContain("networkx");
    expect(JSON.parse(readFileSync(join(out, RLVE_REPORT_FILE), "utf8"))).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it.each(CHOSEN)("%s: a manifest the schema accepts, and an env.py that imports nothing outside the standard library", (identifier) => {
    const pkg = packages.get(identifier) as EnvPackage;
    const manifest = EnvManifestSchema.parse(pkg.manifest);
    expect(manifest).toMatchObject({ name: rlvePackageName(identifier), interaction: "single-turn", maxTurns: 1, rewardRange: [-1, 1], passThreshold: 1, levels: { count: LEVELS } });
    expect(manifest.provenance).toMatchObject({ origin: "seed", createdAt: "2026-12-01T00:00:00.000Z" });
    expect(manifest.hint).not.toMatch(/<answer>/);
    expect(pkg.envSource).not.toMatch(/^\s*(import|from)\s+(torch|numpy|Gym)\b/m);
    expect(pkg.envSource).toContain(`from RLVE (https://github.com/Zhiyuan-Zeng/RLVE, MIT licence)`);
  });

  it.each(CHOSEN)("%s in the sandbox: two levels give different instances, the oracle wins at each, a wrong answer loses, an unreadable one is invalid", async (identifier) => {
    const pkg = packages.get(identifier) as EnvPackage;
    const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: pkg.oracleSource, rewardRange: pkg.manifest.rewardRange });
    if (opened.kind !== "ok") throw new Error(`${identifier}: ${opened.message}`);
    const session = opened.value;
    const oracle = async (observation: string) => {
      const action = await session.oracleAction(observation);
      if (action.kind !== "ok") throw new Error(`oracle: ${action.message}`);
      if (typeof action.value !== "string") throw new Error("an RLVE oracle answers text");
      return action.value;
    };
    try {
      const observations: string[] = [];
      for (const level of [0, LEVELS - 1]) {
        const won = await play(session, 7, level, oracle);
        observations.push(won.observation);
        expect(won.step).toMatchObject({ reward: 1, terminated: true, truncated: false });
        expect(won.step.info).not.toHaveProperty("invalid_action");
        expect(won.step.info).toMatchObject({ accuracy: 1 });
        // the same seed and level give the same problem
        expect((await play(session, 7, level, oracle)).observation).toBe(won.observation);
      }
      expect(observations[0]).not.toBe(observations[1]);
      expect(observations[0]).toContain("<answer> and </answer>");

      let winning = "";
      const wrong = await play(session, 7, 0, async (observation) => {
        winning = await oracle(observation);
        return (WRONG[identifier] as (answer: string) => string)(winning);
      });
      expect(wrong.step.reward).toBeLessThan(1);
      expect(wrong.step.info).not.toHaveProperty("invalid_action");

      for (const unreadable of ["I am not sure.", "", winning.replace("<answer>", "<answer")]) {
        const refused = await play(session, 7, 0, async () => unreadable);
        expect(refused.step).toMatchObject({ reward: -1, terminated: true });
        expect(refused.step.info).toMatchObject({ invalid_action: true, accuracy: 0 });
      }
    } finally {
      await session.close();
    }
  });
});

describe("the RLVE catalogue", () => {
  let read: ReturnType<typeof readRlveCatalogue> | undefined;
  const registryOnce = () => (read ??= readRlveCatalogue({ identifiers: [] }));

  it("gives every one of the 400 registered environments its own valid package name", async () => {
    const { registered, environments } = await registryOnce();
    expect(environments).toEqual([]);
    const names = registered.map(rlvePackageName);
    expect(new Set(names).size).toBe(400);
    for (const name of names) expect(name).toMatch(/^[a-z0-9][a-z0-9-]{0,63}$/);
  });

  it("refuses unknown names with a ConfigError that names them and suggests close identifiers", async () => {
    const { registered } = await registryOnce();
    expect(resolveRlveIdentifiers(registered, ["rlve-multiplication", "ABProgramSimulation"])).toEqual(["ABProgramSimulation", "Multiplication"]);
    expect(() => resolveRlveIdentifiers(registered, ["Multiplication", "multiplicaton", "AxisKCenter"])).toThrow(ConfigError);
    expect(() => resolveRlveIdentifiers(registered, ["AxisKCenter"])).toThrow(/AxisKCenter \(did you mean Axis_KCenter\?\)/);
  });

  it("says how to install RLVE when its interpreter is missing", async () => {
    const missing = readRlveCatalogue({ python: join(out, "no-venv", "bin", "python") });
    await expect(missing).rejects.toThrow(ConfigError);
    await expect(missing).rejects.toThrow(RLVE_SETUP_COMMAND);
  });
});
