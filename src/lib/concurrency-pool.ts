/** What `ConcurrencyPool.tryRun` returns: the task's value, or `ran: false` when it was turned away. */
export type Admitted<T> = { ran: true; value: T } | { ran: false };

/** How `tryRun` turns work away: at most `queueLimit` waiting, each for at most `maxWaitMs`. */
export interface Admission {
  queueLimit: number;
  maxWaitMs?: number;
}

/**
 * Runs async tasks with at most `limit` at once. `run` queues every task (plain closures, so a
 * producer, the files listing, can also wait with `whenBelow` until the queue has room, which keeps
 * memory flat however many files are listed). `tryRun` turns a task away instead (`{ran: false}`)
 * when the queue already holds `queueLimit` or its wait passes `maxWaitMs`, so a caller can answer
 * "busy" at once rather than pile work up: for work whose cost is fixed and shared (a password hash
 * on the libuv thread pool), whatever the number of callers.
 */
export class ConcurrencyPool {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private readonly roomWaiters: Array<{ below: number; resolve: () => void }> = [];
  private peak = 0;

  constructor(
    readonly limit: number,
    private readonly admission: Admission = { queueLimit: Infinity },
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`Concurrency must be a positive integer; got ${limit}`);
    if (!(Number.isInteger(admission.queueLimit) || admission.queueLimit === Infinity) || admission.queueLimit < 0)
      throw new Error(`queueLimit must be a non-negative integer; got ${admission.queueLimit}`);
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
        this.acquire();
        // A task that throws instead of rejecting fails its own promise, not the pool; its slot is free by the time its caller hears.
        new Promise<T>((settle) => settle(task())).finally(() => this.release()).then(resolve, reject);
      };
      if (this.running < this.limit) start();
      else this.queue.push(start);
    });
  }

  /** Runs `task` if a slot is free or frees up within the admission's limits; otherwise `{ran: false}`. */
  async tryRun<T>(task: () => Promise<T>): Promise<Admitted<T>> {
    if (this.running < this.limit) this.acquire();
    else if (this.queue.length >= this.admission.queueLimit || !(await this.waitForSlot())) return { ran: false };
    try {
      return { ran: true, value: await task() };
    } finally {
      this.release();
    }
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

  /** Queues for a slot (taken for the caller when true), giving up after `maxWaitMs`. */
  private waitForSlot(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const { maxWaitMs } = this.admission;
      const start = () => {
        clearTimeout(timer);
        this.acquire();
        resolve(true);
      };
      const timer =
        maxWaitMs === undefined
          ? undefined
          : setTimeout(() => {
              this.queue.splice(this.queue.indexOf(start), 1);
              this.notify();
              resolve(false);
            }, maxWaitMs);
      this.queue.push(start);
    });
  }

  private acquire(): void {
    this.running++;
    this.peak = Math.max(this.peak, this.running);
  }

  private release(): void {
    this.running--;
    const next = this.queue.shift();
    if (next) next();
    this.notify();
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
