import { describe, expect, it } from "vitest";
import { ItemPool } from "./item-pool.js";
import { SharedExclusiveLock } from "./shared-exclusive.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SharedExclusiveLock", () => {
  it("runs shared work together and exclusive work alone, holding new shared work behind a waiting exclusive", async () => {
    const lock = new SharedExclusiveLock();
    const events: string[] = [];
    let running = 0;
    let most = 0;
    const shared = (name: string) =>
      lock.shared(async () => {
        running += 1;
        most = Math.max(most, running);
        await tick(20);
        running -= 1;
        events.push(name);
      });
    const first = [shared("a"), shared("b")];
    await tick(5);
    const exclusive = lock.exclusive(async () => {
      expect(running).toBe(0);
      events.push("x");
    });
    const late = shared("c");
    await Promise.all([...first, exclusive, late]);
    expect(most).toBe(2);
    expect(events).toEqual(["a", "b", "x", "c"]);
  });

  it("releases the lock when work throws", async () => {
    const lock = new SharedExclusiveLock();
    await expect(lock.exclusive(async () => Promise.reject(new Error("boom")))).rejects.toThrowError("boom");
    await expect(lock.shared(async () => Promise.reject(new Error("bang")))).rejects.toThrowError("bang");
    await expect(lock.exclusive(async () => "free")).resolves.toBe("free");
  });
});

describe("ItemPool", () => {
  it("hands out the best-scored free item and waits while all are held", async () => {
    const pool = new ItemPool(["a", "bb", "ccc"]);
    const longest = await pool.take((item) => item.length);
    expect(longest).toBe("ccc");
    const rest = [await pool.take(), await pool.take()];
    expect(rest).toEqual(["a", "bb"]);
    expect(pool.available).toBe(0);
    let got: string | null = null;
    const waiting = pool.take().then((item) => (got = item));
    await tick(5);
    expect(got).toBeNull();
    pool.give("bb");
    await waiting;
    expect(got).toBe("bb");
    expect(() => new ItemPool([])).toThrowError(RangeError);
  });
});
