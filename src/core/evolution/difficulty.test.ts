import { describe, expect, it } from "vitest";
import { frequencyReference, offPolicyDifficulty, skillKey, tableReference } from "./difficulty.js";

// Pool: [(market, counting), (market, search)] and [(maze, search)];
// corpus: one document mentioning "maze" and "search", one mentioning nothing known.
const pool = [
  [
    { scenario: "market", skill: "counting" },
    { scenario: "Market", skill: "search" },
  ],
  [{ scenario: "maze", skill: "Search" }],
];
const corpus = [
  { id: "a", text: "Walk through the MAZE and search every corridor." },
  { id: "b", text: "Nothing about the labels here." },
];

describe("frequencyReference", () => {
  it("gives Laplace-smoothed p(σ) over pool and corpus counts (hand-computed)", () => {
    // c(market) = 2, c(maze) = 1 + 1 (corpus) = 2; total 4; V_σ = 2; α = 1 → denominator 4 + 3 = 7
    const reference = frequencyReference(pool, corpus);
    expect(reference.scenarioProbability("market")).toBeCloseTo(3 / 7, 12);
    expect(reference.scenarioProbability(" MAZE ")).toBeCloseTo(3 / 7, 12);
    expect(reference.scenarioProbability("island")).toBeCloseTo(1 / 7, 12);
  });

  it("gives Laplace-smoothed p(κ | σ) (hand-computed)", () => {
    // market: counting 1, search 1 → 2 + α·(V_κ + 1) = 2 + 3 = 5; maze: search 1 + 1 (corpus) → 5
    const reference = frequencyReference(pool, corpus);
    expect(reference.skillProbability("counting", "market")).toBeCloseTo(2 / 5, 12);
    expect(reference.skillProbability("search", "maze")).toBeCloseTo(3 / 5, 12);
    expect(reference.skillProbability("counting", "maze")).toBeCloseTo(1 / 5, 12);
    expect(reference.skillProbability("juggling", "island")).toBeCloseTo(1 / 3, 12);
  });

  it("honours the smoothing constant", () => {
    // α = 0.5: p(market) = (2 + 0.5) / (4 + 0.5·3) = 2.5 / 5.5
    expect(frequencyReference(pool, corpus, { smoothing: 0.5 }).scenarioProbability("market")).toBeCloseTo(2.5 / 5.5, 12);
  });

  it("refuses a smoothing constant that is not positive", () => {
    expect(() => frequencyReference(pool, corpus, { smoothing: 0 })).toThrowError(RangeError);
    expect(() => frequencyReference(pool, corpus, { smoothing: Number.NaN })).toThrowError(RangeError);
  });

  it("does not count a label without words of three letters as mentioned", () => {
    const reference = frequencyReference([[{ scenario: "a b", skill: "x" }]], [{ id: "d", text: "a b x" }]);
    // c(a b) = 1 only from the pool: (1 + 1) / (1 + 2)
    expect(reference.scenarioProbability("a b")).toBeCloseTo(2 / 3, 12);
  });
});

describe("offPolicyDifficulty", () => {
  it("computes D = L + Σ −log p(σ) + Σ −log p(κ|σ) (hand-computed)", () => {
    const reference = frequencyReference(pool, corpus);
    const difficulty = offPolicyDifficulty(
      [
        { scenario: "market", skill: "search" },
        { scenario: "island", skill: "counting" },
      ],
      reference,
    );
    // scenario: −ln(3/7) − ln(1/7) = 0.8472979 + 1.9459101; skill: −ln(2/5) − ln(1/3) = 0.9162907 + 1.0986123
    expect(difficulty.length).toBe(2);
    expect(difficulty.scenarioSurprise).toBeCloseTo(2.793208, 6);
    expect(difficulty.skillSurprise).toBeCloseTo(2.014903, 6);
    expect(difficulty.total).toBeCloseTo(6.808111, 6);
  });

  it("is 0 for an empty sequence and grows with length and rarity", () => {
    const reference = frequencyReference(pool, corpus);
    expect(offPolicyDifficulty([], reference)).toEqual({ length: 0, scenarioSurprise: 0, skillSurprise: 0, total: 0 });
    const common = offPolicyDifficulty([{ scenario: "maze", skill: "search" }], reference);
    const rare = offPolicyDifficulty([{ scenario: "volcano", skill: "search" }], reference);
    const longer = offPolicyDifficulty([{ scenario: "maze", skill: "search" }, { scenario: "maze", skill: "search" }], reference);
    expect(rare.total).toBeGreaterThan(common.total);
    expect(longer.total).toBeCloseTo(2 * common.total, 12);
  });

  it("uses a table reference with a fallback for missing labels", () => {
    const reference = tableReference(new Map([["maze", 0.5]]), new Map([[skillKey("Maze", "Search"), 0.25]]), 0.01);
    const difficulty = offPolicyDifficulty([{ scenario: "maze", skill: "search" }, { scenario: "cave", skill: "search" }], reference);
    // 2 + (ln 2 + ln 100) + (ln 4 + ln 100)
    expect(difficulty.total).toBeCloseTo(2 + Math.log(2) + Math.log(100) + Math.log(4) + Math.log(100), 12);
  });

  it("rejects a reference probability outside (0, 1]", () => {
    const broken = { scenarioProbability: () => 0, skillProbability: () => 0.5 };
    expect(() => offPolicyDifficulty([{ scenario: "s", skill: "k" }], broken)).toThrowError(/outside \(0, 1\]/);
  });
});
