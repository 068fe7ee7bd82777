import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { PythonInspector } from "../../adapters/python-inspector/index.js";
import { fromPackageDocument } from "../../adapters/package-files/index.js";
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

  it("rejects without a Solver", async () => {
    const { solver: _solver, ...withoutSolver } = context(answers(() => true));
    expect(await calibrationGate().check(pkg, withoutSolver)).toMatchObject({ status: "reject", reason: "model_missing" });
  });
});
