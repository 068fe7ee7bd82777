import { describe, expect, it } from "vitest";
import { funnelSeeds } from "./seed-funnel.js";

const probe = (name: string, wins: number, meanTurns: number, rollouts = 8) => ({ seedId: `env-${name}`, name, rollouts, wins, meanTurns });

describe("funnelSeeds", () => {
  it("keeps seeds with pass rate ≤ 4/8 and mean turns ≥ T", () => {
    const decisions = funnelSeeds([probe("hard-long", 4, 30), probe("easy", 5, 40), probe("short", 0, 29.9), probe("both", 8, 1), probe("unplayed", 0, 0, 0)], { maxPassRate: 0.5, minMeanTurns: 30 });
    expect(decisions.map((decision) => [decision.probe.name, decision.kept, decision.reason])).toEqual([
      ["hard-long", true, null],
      ["easy", false, "solved_too_often"],
      ["short", false, "too_short"],
      ["both", false, "solved_too_often"],
      ["unplayed", false, "too_short"],
    ]);
  });
  it("accepts single-turn tasks when T is lowered", () => {
    expect(funnelSeeds([probe("single", 2, 1)], { maxPassRate: 0.5, minMeanTurns: 1 })[0]?.kept).toBe(true);
  });
});
