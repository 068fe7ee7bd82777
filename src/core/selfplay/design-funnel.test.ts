import { describe, expect, it } from "vitest";
import { reject, type DesignRecord, type Verdict } from "../../spec/index.js";
import { designFunnel } from "./design-funnel.js";

const parsePass: Verdict = { status: "pass", gate: "parse" };
const staticPass: Verdict = { status: "pass", gate: "static" };
const crash = reject("executable", "reset_failed", "reset(0) failed");

function design(index: number, verdicts: Verdict[], environmentId: string | null, repairs: Verdict[][] = []): DesignRecord {
  return {
    round: 1,
    index,
    promptHash: "p",
    corpusDocumentIds: [],
    completion: "c",
    verdicts,
    environmentId,
    reward: 0,
    ...(repairs.length > 0 ? { repairs: repairs.map((attempt) => ({ completion: "earlier", verdicts: attempt })) } : {}),
  };
}

describe("designFunnel", () => {
  it("counts parses, per-stage passes, admissions per turn and the first attempt apart", () => {
    const funnel = designFunnel([
      design(0, [reject("parse", "missing_environment", "no")], null),
      design(1, [parsePass, staticPass, crash], null, [[parsePass, crash]]),
      design(2, [parsePass, staticPass, { status: "pass", gate: "executable" }], "env-a", [[reject("parse", "unparseable", "no")], [parsePass, crash]]),
      design(3, [parsePass, staticPass], "env-b"),
    ]);
    expect(funnel).toEqual({
      designs: 4,
      parsed: 3,
      parsedFirstAttempt: 2,
      admitted: 2,
      admittedFirstAttempt: 1,
      admittedFraction: 0.5,
      perGate: { parse: { ran: 4, passed: 3 }, static: { ran: 3, passed: 3 }, executable: { ran: 2, passed: 1 } },
      attempts: 7,
      // design 1's repaired attempt and design 2's two earlier ones count too
      perGateAttempts: { parse: { ran: 7, passed: 5 }, static: { ran: 3, passed: 3 }, executable: { ran: 4, passed: 1 } },
      admittedOnTurn: { "0": 1, "2": 1 },
      rejections: { "parse:missing_environment": 1, "executable:reset_failed": 1 },
      meanAttempts: 7 / 4,
    });
  });

  it("is all zeros for no designs", () => {
    expect(designFunnel([])).toMatchObject({ designs: 0, admittedFraction: 0, meanAttempts: 0, perGate: {} });
  });
});
