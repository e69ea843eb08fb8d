/**
 * Runs async tasks with at most `limit` at once. Queued tasks are plain closures, so a producer
 * (the files listing) can also wait with `whenBelow` until the queue has room, which keeps memory
 * flat however many files are listed.
 */
export class ConcurrencyPool {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private readonly roomWaiters: Array<{ below: number; resolve: () => void }> = [];
  private peak = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`Concurrency must be a positive integer; got ${limit}`);
  }

  /** Tasks running plus waiting. */
  get size(): number {
    return this.running + this.queue.length;
  }

  /** Most tasks that ever ran at once. */
  get maxRunning(): number {
    return this.peak;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        this.peak = Math.max(this.peak, this.running);
        // A task that throws instead of rejecting fails its own promise, not the pool.
        new Promise<T>((settle) => settle(task()))
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            const next = this.queue.shift();
            if (next) next();
            this.notify();
          });
      };
      if (this.running < this.limit) start();
      else this.queue.push(start);
    });
  }

  /** Resolves once fewer than `below` tasks are running or queued. */
  whenBelow(below: number): Promise<void> {
    if (this.size < below) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push({ below, resolve }));
  }

  /** Resolves once nothing is running or queued. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notify(): void {
    for (let i = this.roomWaiters.length - 1; i >= 0; i--) {
      const waiter = this.roomWaiters[i];
      if (waiter && this.size < waiter.below) {
        this.roomWaiters.splice(i, 1);
        waiter.resolve();
      }
    }
    if (this.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}
