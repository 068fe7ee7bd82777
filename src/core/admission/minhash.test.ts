import { describe, expect, it } from "vitest";
import { minHashSignature, minHashSimilarity, noveltyTokens, SHINGLE_TOKENS } from "./minhash.js";

function exactJaccard(a: readonly string[], b: readonly string[]): number {
  const shingles = (tokens: readonly string[]) => new Set(tokens.slice(0, tokens.length - SHINGLE_TOKENS + 1).map((_, start) => tokens.slice(start, start + SHINGLE_TOKENS).join(" ")));
  const left = shingles(a);
  const right = shingles(b);
  const shared = [...left].filter((shingle) => right.has(shingle)).length;
  return shared / (left.size + right.size - shared);
}

const words = (count: number, offset = 0) => Array.from({ length: count }, (_, index) => `w${index + offset}`);

describe("MinHash text similarity", () => {
  it("is 1 for identical texts and ignores comments, case and spacing", () => {
    const a = noveltyTokens("Add numbers", "class A:\n    def reset(self, seed):  # start\n        return 'x'\n", "def act(env, o):\n    return '1'\n");
    const b = noveltyTokens("ADD   numbers", "class A:\n  def reset(self, seed):\n    return 'x'\n", "# oracle\ndef act(env, o):\n    return '1'\n");
    expect(minHashSimilarity(minHashSignature(a), minHashSignature(b))).toBe(1);
  });

  it("estimates the shingle Jaccard within 0.12", () => {
    for (const overlap of [0, 100, 200, 300]) {
      const a = words(400);
      const b = [...words(overlap), ...words(400 - overlap, 10_000)];
      const estimate = minHashSimilarity(minHashSignature(a), minHashSignature(b));
      expect(Math.abs(estimate - exactJaccard(a, b))).toBeLessThan(0.12);
    }
  });

  it("keeps unrelated texts far apart", () => {
    expect(minHashSimilarity(minHashSignature(words(300)), minHashSignature(words(300, 5000)))).toBeLessThan(0.05);
  });
});
