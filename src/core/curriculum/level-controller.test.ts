import { describe, expect, it } from "vitest";
import type { EnvManifest, EpisodeRecord } from "../../spec/index.js";
import { formatWindow, initialWindow, levelWindows, sampleLevel, staticLevel, type LevelSettings } from "./level-controller.js";

const settings: LevelSettings = { controller: "adaptive", accuracyThreshold: 0.75, minSamples: 4, window: 2 };
const manifest = (count: number, staticAt?: number): Pick<EnvManifest, "levels" | "difficulty"> => ({
  levels: { count, description: "more items" },
  difficulty: staticAt === undefined ? {} : { staticLevel: staticAt },
});

function episode(environmentId: string, level: number, won: boolean, hint = false): EpisodeRecord {
  return {
    round: 0,
    environmentId,
    role: "solver",
    hint,
    policyVersion: 0,
    episode: { seed: 1, level, initialObservation: "", turns: [], return: won ? 1 : 0, won, terminated: true, truncated: false },
  };
}

describe("levelWindows", () => {
  it("replays the stored rounds: raises on 3 of 4 at the top, ignores hint plays and other environments, slides to d = 2", () => {
    const byRound = new Map<number, EpisodeRecord[]>([
      // round 1: 3 of 4 at level 0 without the hint -> [0, 1]; the hint plays (all lost) and env b do not count
      [1, [episode("a", 0, true), episode("a", 0, true), episode("a", 0, true), episode("a", 0, false), episode("a", 0, false, true), episode("a", 0, false, true), episode("b", 0, false)]],
      // round 2: only 2 plays at level 1 (both won): no decision yet
      [2, [episode("a", 1, true), episode("a", 1, true), episode("a", 0, false)]],
      // round 3: 2 more at level 1, 1 won: 3 of 4 -> [1, 2]
      [3, [episode("a", 1, true), episode("a", 1, false)]],
      // round 4: 4 of 4 at level 2, the top of 3 levels: decided, not raised
      [4, [episode("a", 2, true), episode("a", 2, true), episode("a", 2, true), episode("a", 2, true)]],
    ]);
    const history = { rounds: [1, 2, 3, 4], episodesOf: (round: number) => byRound.get(round) ?? [] };
    const environments = [
      { id: "a", manifest: manifest(3) },
      { id: "b", manifest: manifest(6) },
    ];
    const at = (before: number) => levelWindows(environments, history, before, settings).get("a");
    expect(at(1)).toMatchObject({ low: 0, high: 0, attempts: 0 });
    expect(at(2)).toMatchObject({ low: 0, high: 1, attempts: 0, raisedAt: [1] });
    expect(at(3)).toMatchObject({ low: 0, high: 1, attempts: 2, wins: 2 });
    expect(at(4)).toMatchObject({ low: 1, high: 2, attempts: 0, raisedAt: [1, 3] });
    expect(at(5)).toMatchObject({ low: 1, high: 2, attempts: 0, raisedAt: [1, 3] });
    // 0 of 1 at level 0 in round 1 for b: below minSamples
    expect(levelWindows(environments, history, 5, settings).get("b")).toMatchObject({ low: 0, high: 0, attempts: 1, wins: 0 });
  });

  it("keeps a static controller at the family's staticLevel", () => {
    const history = { rounds: [1], episodesOf: () => [episode("a", 3, true), episode("a", 3, true), episode("a", 3, true), episode("a", 3, true)] };
    const window = levelWindows([{ id: "a", manifest: manifest(6, 3) }], history, 2, { ...settings, controller: "static" }).get("a");
    expect(window).toMatchObject({ low: 3, high: 3 });
  });
});

describe("staticLevel and sampleLevel", () => {
  it("falls back to level 0 for a missing or undeclared staticLevel", () => {
    expect(staticLevel(manifest(6, 4))).toBe(4);
    expect(staticLevel(manifest(6, 9))).toBe(0);
    expect(staticLevel({ difficulty: { staticLevel: 2 } })).toBe(0);
    expect(initialWindow("x", manifest(6, 4), { ...settings, controller: "static" })).toMatchObject({ low: 4, high: 4, count: 6 });
  });

  it("samples uniformly over the window's levels", () => {
    const window = { low: 2, high: 4 };
    expect([0, 0.33, 0.34, 0.66, 0.67, 0.999999].map((random) => sampleLevel(window, random))).toEqual([2, 2, 3, 3, 4, 4]);
    expect(formatWindow(window)).toBe("[2, 4]");
    expect(formatWindow({ low: 1, high: 1 })).toBe("[1]");
  });
});
