import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { behaviourFingerprint, fingerprintSimilarity, observationTemplate } from "./behaviour-fingerprint.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("observationTemplate", () => {
  it("abstracts numbers, names and list sizes, keeps the sentence", () => {
    expect(observationTemplate("I picked a number from 1 to 740. You have 12 guesses.")).toBe(observationTemplate("I picked a number from 1 to 4410. You have 15 guesses."));
    expect(observationTemplate("Numbers: 12 45 78 90 11. Reply 'Answer: <total>'.")).toBe("numbers: #…. reply 'answer: <total>'.");
    expect(observationTemplate("Numbers: 1, 2, 3")).toBe(observationTemplate("Numbers: 4, 5, 6, 7, 8, 9"));
    expect(observationTemplate("Edges: A-B 3, B-C 4, n12-n7 2")).toBe(observationTemplate("Edges: X-Y 9, Q-R 1"));
    expect(observationTemplate("row\nrow\nrow\nend")).toBe("row\nend");
    expect(observationTemplate("Too low.")).not.toBe(observationTemplate("Too high."));
  });
});

describe("behaviour fingerprint", () => {
  const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
  afterAll(() => sandbox.close());
  const fingerprint = (path: string) => behaviourFingerprint(sandbox, loadPackageFolder(join(ROOT, path)));

  it("matches a reworded and re-sized copy, and tells different tasks apart", async () => {
    const guess = await fingerprint("envs/seeds/number-guess");
    expect(fingerprintSimilarity(guess, await fingerprint("fixtures/broken-envs/copy-number-guess-resized"))).toBeGreaterThanOrEqual(0.8);
    const knapsack = await fingerprint("envs/seeds/knapsack");
    expect(fingerprintSimilarity(knapsack, await fingerprint("envs/seeds/longest-increasing-subsequence"))).toBeLessThan(0.5);
    expect(fingerprintSimilarity(knapsack, guess)).toBeLessThan(0.5);
  }, 120_000);
});
