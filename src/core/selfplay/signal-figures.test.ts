import { describe, expect, it } from "vitest";
import type { RoundReport } from "../../spec/index.js";
import { signalFigures } from "./signal-figures.js";

function report(round: number, solver: RoundReport["solver"], levels: RoundReport["levels"] = []): RoundReport {
  return { round, proposed: 0, admitted: 0, rejected: {}, solver, levels, designer: { meanReward: null }, trainer: { name: "noop", policyVersion: 0, datums: 0 }, diagnostics: {}, errors: {}, seconds: 1 };
}

describe("signalFigures", () => {
  it("sums the rounds' groups and windows and weights win rates by episodes", () => {
    const figures = signalFigures([
      report(1, { episodes: 8, winRateNoHint: 0.25, winRateHint: 0.5, invalidActionRate: 0.5, signal: { groups: 2, returnVariance: 1, penaltyOnly: 1, constant: 0, fraction: 0.5 } }, [
        { environmentId: "a", name: "a", count: 6, window: [0, 0], next: [0, 1], byLevel: {} },
      ]),
      report(2, { episodes: 16, winRateNoHint: 0.5, winRateHint: 0.75, invalidActionRate: 0.1, signal: { groups: 4, returnVariance: 3, penaltyOnly: 0, constant: 1, fraction: 0.75 } }, [
        { environmentId: "a", name: "a", count: 6, window: [0, 1], next: [0, 1], byLevel: {} },
      ]),
    ]);
    expect(figures).toEqual({
      rounds: 2,
      episodes: 24,
      groups: 6,
      returnVariance: 4,
      penaltyOnly: 1,
      signalFraction: 4 / 6,
      // (0.25·4 + 0.5·8) / 12 and (0.5·4 + 0.75·8) / 12
      winRateNoHint: 5 / 12,
      winRateHint: 8 / 12,
      invalidActionRate: 0.3,
      windowsRaised: 1,
      highestLevel: 1,
    });
  });

  it("gives null rates for reports without episodes or signal (older reports)", () => {
    expect(signalFigures([report(1, { episodes: 0, winRateNoHint: null, winRateHint: null })])).toMatchObject({ groups: 0, signalFraction: null, winRateNoHint: null, invalidActionRate: null });
  });
});
