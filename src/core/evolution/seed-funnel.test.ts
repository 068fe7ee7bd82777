import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { funnelSeeds, probeSeed } from "./seed-funnel.js";

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000 } });
afterAll(() => sandbox.close());

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

describe("probeSeed (scripted fake Solver, real sandbox)", () => {
  it("counts wins and mean turns over the rollouts", async () => {
    const seed = loadSeedPackages().find((pkg) => pkg.manifest.name === "number-guess");
    if (seed === undefined) throw new Error("seed number-guess missing");
    // the SCRIPTED FAKE Solver always guesses 1: it never wins and uses the whole guess budget (capped at 5 turns)
    const probe = await probeSeed(seed, new ScriptedModel([], () => "Guess: 1"), sandbox, { rollouts: 3, maxTurns: 5, maxTokens: 8, temperature: 0 }, "test");
    expect(probe).toMatchObject({ name: "number-guess", rollouts: 3, wins: 0, meanTurns: 5 });
    expect(funnelSeeds([probe], { maxPassRate: 0.5, minMeanTurns: 30 })[0]?.reason).toBe("too_short");
  }, 60_000);
});
