import { describe, expect, it } from "vitest";
import type { EnvironmentRecord, EnvironmentScores } from "../../spec/index.js";
import { seededRandom } from "../rollout/index.js";
import { deriveSeed, rankExamples, sampleWithoutReplacement } from "./sampling.js";

/** A random source that replays `values` in order (then repeats the last one). */
function replay(...values: number[]): () => number {
  let index = 0;
  return () => values[Math.min(index++, values.length - 1)] ?? 0;
}

function environment(id: string, designerReward: number | null): EnvironmentRecord {
  const scores: EnvironmentScores | null =
    designerReward === null
      ? null
      : { plays: 4, winRateNoHint: 0.5, winRateHint: 1, meanReturnNoHint: 0.5, meanReturnHint: 1, regret: 0.5, designerReward };
  return {
    id,
    round: designerReward === null ? null : 1,
    scores,
    package: {
      manifest: {
        schemaVersion: 1,
        name: id,
        title: id,
        description: "A test environment.",
        interaction: "single-turn",
        maxTurns: 1,
        rewardRange: [0, 1],
        passThreshold: 1,
        hint: "none",
        skills: ["general"],
        scenario: "puzzle",
        difficulty: {},
        provenance: {
          origin: designerReward === null ? "seed" : "designer",
          parentId: null,
          generation: 0,
          designerModel: null,
          promptHash: null,
          corpusDocumentIds: [],
          createdAt: "2026-11-29T12:00:00.000Z",
        },
      },
      envSource: "class E:\n    pass\n",
      oracleSource: "def act(env, observation):\n    return ''\n",
    },
  };
}

describe("deriveSeed", () => {
  it("is the first four bytes of sha256 over the parts joined by '/', big-endian", () => {
    // sha256("7/1/design/0") = 1e44f740…, sha256("42/3/solver") = 9d560553… (computed with sha256sum)
    expect(deriveSeed(7, 1, "design", 0)).toBe(0x1e44f740);
    expect(deriveSeed(42, 3, "solver")).toBe(0x9d560553);
  });

  it("gives the same seed for the same parts, on every call", () => {
    expect(deriveSeed(7, 1, "design", 0)).toBe(deriveSeed(7, 1, "design", 0));
  });

  it("gives a 32-bit unsigned integer", () => {
    for (let index = 0; index < 100; index += 1) {
      const seed = deriveSeed(1, 2, "calibration", index);
      expect(Number.isInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThan(2 ** 32);
    }
  });

  it("gives distinct seeds when any part or the order of the parts changes", () => {
    const seeds = [
      deriveSeed(7, 1, "design", 0),
      deriveSeed(7, 1, "design", 1),
      deriveSeed(7, 2, "design", 0),
      deriveSeed(8, 1, "design", 0),
      deriveSeed(7, 1, "solver", 0),
      deriveSeed(1, 7, "design", 0),
      deriveSeed(7, 1, "design"),
    ];
    expect(new Set(seeds).size).toBe(seeds.length);
  });

  it("spreads consecutive indices over distinct seeds", () => {
    const seeds = Array.from({ length: 1000 }, (_, index) => deriveSeed(3, 5, "design", index));
    expect(new Set(seeds).size).toBe(1000);
  });
});

describe("sampleWithoutReplacement", () => {
  const pool = ["a", "b", "c", "d", "e", "f", "g", "h"] as const;

  it("draws the same items in the same order from the same seed", () => {
    expect(sampleWithoutReplacement(pool, 4, seededRandom(11))).toEqual(sampleWithoutReplacement(pool, 4, seededRandom(11)));
  });

  it("draws `count` distinct items of the pool", () => {
    for (let seed = 0; seed < 50; seed += 1) {
      const taken = sampleWithoutReplacement(pool, 5, seededRandom(seed));
      expect(taken).toHaveLength(5);
      expect(new Set(taken).size).toBe(5);
      for (const item of taken) expect(pool).toContain(item);
    }
  });

  it("returns every item once when count exceeds the pool", () => {
    const taken = sampleWithoutReplacement(pool, 100, seededRandom(3));
    expect(taken).toHaveLength(pool.length);
    expect([...taken].sort()).toEqual([...pool]);
  });

  it("returns nothing for count 0 or an empty pool", () => {
    expect(sampleWithoutReplacement(pool, 0, seededRandom(1))).toEqual([]);
    expect(sampleWithoutReplacement([], 3, seededRandom(1))).toEqual([]);
  });

  it("picks the item at floor(random · remaining) from what is left", () => {
    expect(sampleWithoutReplacement(["a", "b", "c"], 3, replay(0))).toEqual(["a", "b", "c"]);
    expect(sampleWithoutReplacement(["a", "b", "c"], 3, replay(0.999))).toEqual(["c", "b", "a"]);
    // 0.5 · 3 → index 1 ("b"); then 0.5 · 2 → index 1 of ["a", "c"] ("c")
    expect(sampleWithoutReplacement(["a", "b", "c"], 2, replay(0.5))).toEqual(["b", "c"]);
  });

  it("leaves the input untouched", () => {
    const items = ["x", "y", "z"];
    sampleWithoutReplacement(items, 2, seededRandom(9));
    expect(items).toEqual(["x", "y", "z"]);
  });

  it("keeps duplicate values of the pool as separate items", () => {
    expect(sampleWithoutReplacement([1, 1, 2], 3, seededRandom(4)).sort()).toEqual([1, 1, 2]);
  });

  it("chooses every item about equally often", () => {
    const random = seededRandom(12345);
    const counts = new Map<string, number>();
    for (let draw = 0; draw < 8000; draw += 1) {
      const [item] = sampleWithoutReplacement(pool, 1, random);
      if (item !== undefined) counts.set(item, (counts.get(item) ?? 0) + 1);
    }
    expect(counts.size).toBe(pool.length);
    // expected 1000 each; a standard deviation is about 30
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(150);
  });
});

describe("rankExamples", () => {
  const memory = [
    environment("seed-one", null),
    environment("low", 0.1),
    environment("seed-two", null),
    environment("high", 0.9),
    environment("negative", -0.5),
    environment("middle", 0.5),
  ];

  it("orders scored environments by designer reward, highest first, and unscored ones last", () => {
    const ranked = rankExamples(memory, memory.length, seededRandom(1)).map((record) => record.id);
    expect(ranked.slice(0, 4)).toEqual(["high", "middle", "low", "negative"]);
    expect(new Set(ranked.slice(4))).toEqual(new Set(["seed-one", "seed-two"]));
  });

  it("keeps the first `count` of the ranking", () => {
    expect(rankExamples(memory, 2, seededRandom(1)).map((record) => record.id)).toEqual(["high", "middle"]);
    expect(rankExamples(memory, 0, seededRandom(1))).toEqual([]);
    expect(rankExamples(memory, 50, seededRandom(1))).toHaveLength(memory.length);
  });

  it("orders unscored environments by one random draw each, in memory order", () => {
    const seeds = [environment("s0", null), environment("s1", null), environment("s2", null)];
    expect(rankExamples(seeds, 3, replay(0.7, 0.2, 0.5)).map((record) => record.id)).toEqual(["s1", "s2", "s0"]);
    expect(rankExamples(seeds, 3, replay(0.1, 0.2, 0.3)).map((record) => record.id)).toEqual(["s0", "s1", "s2"]);
  });

  it("breaks ties between equal rewards by the random draw", () => {
    const tied = [environment("first", 0.5), environment("second", 0.5), environment("best", 0.8)];
    expect(rankExamples(tied, 3, replay(0.9, 0.1, 0.5)).map((record) => record.id)).toEqual(["best", "second", "first"]);
  });

  it("is deterministic for a seed and leaves the memory untouched", () => {
    const before = memory.map((record) => record.id);
    expect(rankExamples(memory, 6, seededRandom(77))).toEqual(rankExamples(memory, 6, seededRandom(77)));
    expect(memory.map((record) => record.id)).toEqual(before);
  });

  it("returns nothing from an empty memory", () => {
    expect(rankExamples([], 3, seededRandom(1))).toEqual([]);
  });
});
