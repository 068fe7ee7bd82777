import { describe, expect, it } from "vitest";
import { mapWithConcurrency } from "./concurrency.js";

describe("mapWithConcurrency", () => {
  it("keeps the input order and never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([30, 10, 20, 5, 1], 2, async (delay, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, delay));
      running -= 1;
      return `${index}:${delay}`;
    });
    expect(results).toEqual(["0:30", "1:10", "2:20", "3:5", "4:1"]);
    expect(peak).toBe(2);
  });

  it("rejects with the first failure and starts no new work after it", async () => {
    const started: number[] = [];
    const run = mapWithConcurrency([1, 2, 3, 4], 1, async (item) => {
      started.push(item);
      if (item === 2) throw new Error("boom");
      return item;
    });
    await expect(run).rejects.toThrow("boom");
    expect(started).toEqual([1, 2]);
  });

  it("returns an empty list for no items", async () => {
    expect(await mapWithConcurrency([], 3, async () => 1)).toEqual([]);
  });
});
