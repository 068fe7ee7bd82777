/**
 * A fixed set of reusable items (llama.cpp context sequences, sandbox sessions) handed out
 * one holder at a time. `take` waits while every item is held; among free items it returns
 * the one `score` ranks highest (the first of equals), so a caller can ask for the item whose
 * cached state suits it best.
 */
export class ItemPool<T> {
  private readonly free: T[];
  private wakers: Array<() => void> = [];

  /** @param items the pool's items, all free; at least one */
  constructor(items: readonly T[]) {
    if (items.length === 0) throw new RangeError("an item pool needs at least one item");
    this.free = [...items];
  }

  /** Items free now. */
  get available(): number {
    return this.free.length;
  }

  /**
   * A free item, waiting until one is given back when all are held.
   * @param score higher = preferred. @default every item scores 0
   */
  async take(score: (item: T) => number = () => 0): Promise<T> {
    while (this.free.length === 0) await new Promise<void>((resolve) => this.wakers.push(resolve));
    let best = 0;
    let bestScore = score(this.free[0] as T);
    for (let index = 1; index < this.free.length; index += 1) {
      const value = score(this.free[index] as T);
      if (value > bestScore) {
        best = index;
        bestScore = value;
      }
    }
    return this.free.splice(best, 1)[0] as T;
  }

  /** Returns an item taken from this pool. */
  give(item: T): void {
    this.free.push(item);
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }
}
