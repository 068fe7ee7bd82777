import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { PythonInspector } from "../../adapters/python-inspector/index.js";
import { fromPackageDocument, loadPackageFolder } from "../../adapters/package-files/index.js";
import { SECRET_42 } from "../../testing/scripted-model.js";
import type { Policy } from "../rollout/index.js";
import { calibrationGate } from "./calibration-gate.js";
import type { AdmissionContext } from "./gate.js";

// Control flow of the calibration gate with SCRIPTED Solver policies (no model): the real sandbox plays SECRET_42.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 3000 } });
afterAll(() => sandbox.close());
const pkg = fromPackageDocument({
  manifest: { schemaVersion: 1, interaction: "single-turn", rewardRange: [0, 1], passThreshold: 1, difficulty: {}, ...SECRET_42.manifest, provenance: { origin: "designer", createdAt: "2026-11-29T00:00:00.000Z" } },
  files: { "env.py": SECRET_42.env, "oracle.py": SECRET_42.oracle },
});
const answers = (right: (play: number) => boolean): ((play: number) => Policy) => (play) => ({ name: "scripted", act: async () => ({ text: right(play) ? "42" : "7" }) });

function context(policy: (play: number) => Policy, admission: object = {}): AdmissionContext {
  return { sandbox, inspector: new PythonInspector(), settings: parseConfig({ admission }).admission, solver: { maxTurns: 1, policy } };
}

describe("calibration gate (scripted Solver policies)", () => {
  it("admits a pass rate inside the band from the first stage", async () => {
    const verdict = await calibrationGate().check(pkg, context(answers((play) => play % 2 === 0)));
    expect(verdict).toMatchObject({ status: "pass", evidence: { plays: 8, wins: 4, passRate: 0.5, secondStage: false } });
  });

  it("plays a second stage near a band edge and decides on all plays", async () => {
    const verdict = await calibrationGate().check(pkg, context(answers((play) => play === 0 || play === 12)));
    expect(verdict).toMatchObject({ status: "pass", evidence: { plays: 16, wins: 2, passRate: 0.125, firstStageRate: 0.125, secondStage: true } });
  });

  it("rejects too easy and too hard environments with their reasons", async () => {
    expect(await calibrationGate().check(pkg, context(answers(() => true)))).toMatchObject({ status: "reject", reason: "too_easy", evidence: { plays: 16 } });
    expect(await calibrationGate().check(pkg, context(answers(() => false), { secondStagePlays: 0 }))).toMatchObject({ status: "reject", reason: "too_hard", evidence: { plays: 8 } });
    expect(await calibrationGate().check(pkg, context(answers((play) => play < 6), { bandLow: 0.25, bandHigh: 0.75, secondStagePlays: 0 }))).toMatchObject({ reason: "too_easy", evidence: { plays: 8, passRate: 0.75 } });
  });

  // fixtures/levelled-envs/level-sum: level L adds L + 2 numbers and says "Level L." first
  const levelled = loadPackageFolder(new URL("../../../fixtures/levelled-envs/level-sum", import.meta.url).pathname);
  const sumOf = (observation: string) => (observation.split(":")[1] ?? "").split("+").reduce((total, term) => total + Number.parseInt(term, 10), 0);
  const levelOf = (observation: string) => Number(/^Level (\d+)/.exec(observation)?.[1]);
  // right below level 2, on every other play at level 2, never above
  const byLevel: (play: number) => Policy = (play) => ({
    name: "scripted",
    act: async ({ observation }) => ({ text: String(levelOf(observation) < 2 || (levelOf(observation) === 2 && play % 2 === 0) ? sumOf(observation) : 0) }),
  });

  it("searches a levelled family's levels for one in the band and admits it there, with every level probed", async () => {
    const verdict = await calibrationGate().check(levelled, context(byLevel));
    // four levels: the search probes level 1 (16 of 16 with the second stage at the edge: too easy), then level 2 (4 of 8: in the band)
    expect(verdict).toMatchObject({ status: "pass", evidence: { level: 2, plays: 8, wins: 4, probes: [{ level: 1, wins: 16, plays: 16 }, { level: 2, wins: 4, plays: 8 }] } });
  });

  it("rejects a levelled family only when no level is in the band, naming the levels probed", async () => {
    const never: (play: number) => Policy = () => ({ name: "scripted", act: async () => ({ text: "0" }) });
    const verdict = await calibrationGate().check(levelled, context(never, { secondStagePlays: 0 }));
    expect(verdict).toMatchObject({ status: "reject", reason: "too_hard", evidence: { probes: [{ level: 1, wins: 0 }, { level: 0, wins: 0 }] } });
    expect(verdict.status === "reject" ? verdict.message : "").toContain("level 1: 0/8, level 0: 0/8");
    const always: (play: number) => Policy = () => ({ name: "scripted", act: async ({ observation }) => ({ text: String(sumOf(observation)) }) });
    expect(await calibrationGate().check(levelled, context(always, { secondStagePlays: 0 }))).toMatchObject({ reason: "too_easy", evidence: { probes: [{ level: 1 }, { level: 2 }, { level: 3 }] } });
  });

  it("rejects without a Solver", async () => {
    const { solver: _solver, ...withoutSolver } = context(answers(() => true));
    expect(await calibrationGate().check(pkg, withoutSolver)).toMatchObject({ status: "reject", reason: "model_missing" });
  });
});
