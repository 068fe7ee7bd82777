import { describe, expect, it } from "vitest";
import { PROBE_ACTIONS, sweepAction } from "./executable-gate.js";

// The whole-episode probe's moves come from each environment's own observations (issue 34: the
// fixed sweep was the same for every environment, so fixtures/broken-envs/unbounded-on-valid-moves,
// which ends on any reply but its own moves, was admitted).

describe("sweepAction", () => {
  it("cycles through the options the observations quote, first observation's first", () => {
    const first = "Counter at 3; bring it to 11. Each turn reply 'inc' or 'dec'.";
    expect([0, 1, 2, 3].map((turn) => sweepAction(first, "Counter at 4; target 11.", turn))).toEqual(["inc", "dec", "inc", "dec"]);
    expect(sweepAction('Say "look" or "open door".', "You see a door.", 1)).toBe("open door");
  });

  it("without quoted options, sweeps the observations' numbers, then their words", () => {
    const first = "Pick a number from 1 to 9";
    expect([0, 1, 2, 3].map((turn) => sweepAction(first, first, turn))).toEqual(["1", "9", "Pick", "a"]);
  });

  it("falls back to the fixed probe actions when the observations hold nothing, and never offers long or empty options", () => {
    expect([0, 1, 2, 3].map((turn) => sweepAction("", "   ", turn))).toEqual(PROBE_ACTIONS.slice(0, 4));
    // a 41-character quote is no option; the text between the quotes around " or " is the only one left
    expect(sweepAction(`'${"x".repeat(41)}' or ''`, "", 0)).toBe("or");
    expect(sweepAction("''", "", 0)).toBe("1");
  });
});
