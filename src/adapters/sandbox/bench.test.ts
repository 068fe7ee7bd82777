import { describe, expect, it } from "vitest";
import { percentiles } from "./bench.js";

describe("percentiles", () => {
  it("takes nearest-rank p50 and p99", () => {
    const samples = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentiles(samples)).toEqual({ p50: 50, p99: 99, samples: 100 });
    expect(percentiles([7])).toEqual({ p50: 7, p99: 7, samples: 1 });
  });
});
