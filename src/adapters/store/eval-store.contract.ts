import { describe, expect, it } from "vitest";
import type { EvalStore, ItemResult } from "../../spec/index.js";

const record = { id: "abc123", model: "m", checkpoint: null, suiteVersion: "v", plan: { seeds: [1] }, createdAt: "2026-12-01T00:00:00.000Z" };

function item(index: number, score: number): ItemResult {
  return { suite: "reasoning-gym", task: "leg_counting", index, bucket: "easy", seed: 10 + index, score, won: score === 1, prompt: "p", completion: "c", seconds: 0.1 } as unknown as ItemResult;
}

/**
 * The {@link EvalStore} contract, run against every backend: `open` returns a new empty store.
 * Callers close nothing; each test closes its store.
 */
export function evalStoreContract(name: string, open: () => EvalStore): void {
  describe(`EvalStore contract: ${name}`, () => {
    it("begins an evaluation once and finds it by id or unique prefix", () => {
      const store = open();
      expect(store.beginEval(record)).toEqual({ ...record, finishedAt: null });
      expect(store.beginEval({ ...record, model: "other" }).model).toBe("m");
      store.beginEval({ ...record, id: "abd999" });
      expect(store.findEval("abc")?.id).toBe("abc123");
      expect(store.findEval("ab")).toBeUndefined();
      expect(store.findEval("zzz")).toBeUndefined();
      expect(store.listEvals().map((stored) => stored.id)).toEqual(["abc123", "abd999"]);
      store.close();
    });

    it("keeps the first finish time", () => {
      const store = open();
      store.beginEval(record);
      store.finishEval(record.id, "2026-12-01T01:00:00.000Z");
      store.finishEval(record.id, "2026-12-02T09:00:00.000Z");
      expect(store.findEval(record.id)?.finishedAt).toBe("2026-12-01T01:00:00.000Z");
      store.close();
    });

    it("stores items in the order first stored, and replaces an item saved again in place", () => {
      const store = open();
      store.beginEval(record);
      store.saveItem(record.id, item(2, 0));
      store.saveItem(record.id, item(0, 1));
      store.saveItem(record.id, item(2, 1));
      expect(store.listItems(record.id).map((stored) => [stored.index, stored.score])).toEqual([
        [2, 1],
        [0, 1],
      ]);
      expect(store.listItems("other")).toEqual([]);
      store.close();
    });
  });
}
