/** What `BoundedConcurrency.run` returns: the task's value, or `busy` when it never ran. */
export type Admitted<T> = { ran: true; value: T } | { ran: false };

/**
 * Runs async tasks with at most `limit` at once and at most `queueLimit` more waiting, each for at
 * most `maxWaitMs`; a task that finds the queue full, or waits too long, is not run at all
 * (`{ran: false}`), so the caller can answer "busy" at once instead of piling work up. For work
 * whose cost is fixed and shared (a password hash on the libuv thread pool): whatever the number
 * of callers, it never takes more than `limit` threads.
 */
export class BoundedConcurrency {
  private running = 0;
  private readonly waiting: Array<{ start: () => void; timer: NodeJS.Timeout }> = [];

  constructor(
    readonly limit: number,
    readonly queueLimit: number,
    readonly maxWaitMs: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer; got ${limit}`);
    if (!Number.isInteger(queueLimit) || queueLimit < 0) throw new Error(`queueLimit must be a non-negative integer; got ${queueLimit}`);
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<Admitted<T>> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.queueLimit) return { ran: false };
      const admitted = await new Promise<boolean>((resolve) => {
        const entry = {
          start: () => {
            clearTimeout(entry.timer);
            resolve(true);
          },
          timer: setTimeout(() => {
            const at = this.waiting.indexOf(entry);
            if (at >= 0) this.waiting.splice(at, 1);
            resolve(false);
          }, this.maxWaitMs),
        };
        this.waiting.push(entry);
      });
      if (!admitted) return { ran: false };
    } else {
      this.running += 1;
    }
    try {
      return { ran: true, value: await task() };
    } finally {
      // Hand the slot straight to the next waiter (it counts as running already), or free it.
      const next = this.waiting.shift();
      if (next) next.start();
      else this.running -= 1;
    }
  }
}
