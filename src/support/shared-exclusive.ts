/**
 * A readers–writer lock for async work: any number of `shared` calls run at once, an
 * `exclusive` call runs alone. Writer-preferring: once an exclusive call is waiting, new
 * shared calls wait behind it, so a weight sync is never starved by a stream of samples.
 * Exclusive calls run one after another in call order. A call that throws releases the
 * lock and rethrows.
 */
export class SharedExclusiveLock {
  private sharedRunning = 0;
  private exclusiveRunning = false;
  private exclusiveWaiting = 0;
  private wakers: Array<() => void> = [];

  /** Runs `work` alongside other shared work, after every exclusive call already waiting. */
  async shared<T>(work: () => Promise<T>): Promise<T> {
    while (this.exclusiveRunning || this.exclusiveWaiting > 0) await this.wait();
    this.sharedRunning += 1;
    try {
      return await work();
    } finally {
      this.sharedRunning -= 1;
      this.wakeAll();
    }
  }

  /** Runs `work` once no other call (shared or exclusive) is running. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.exclusiveWaiting += 1;
    try {
      while (this.exclusiveRunning || this.sharedRunning > 0) await this.wait();
    } finally {
      this.exclusiveWaiting -= 1;
    }
    this.exclusiveRunning = true;
    try {
      return await work();
    } finally {
      this.exclusiveRunning = false;
      this.wakeAll();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  private wakeAll(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }
}
