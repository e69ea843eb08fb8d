import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

/** How often answers are held against their deadline: each is cut within this much past it. */
const SWEEP_MS = 1_000;

/**
 * Cuts every answer not finished `timeoutMs` after it was tracked: `res.destroy()` closes its
 * connection, so its `close` gives back whatever the answer held (an admission slot). One timer
 * for all of them, looking once a second and stopping while nothing is tracked, rather than a
 * timer per answer: tracking costs a Map entry, and a sweep reads only the answers that are due
 * (the Map keeps the order they were tracked in, which is the order they fall due).
 */
export class ResponseDeadlines {
  private readonly started = new Map<ServerResponse, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    /** Told of each answer cut (before it is destroyed). */
    private readonly onCut: (res: ServerResponse) => void = () => undefined,
  ) {}

  track(res: ServerResponse): void {
    this.started.set(res, performance.now());
    this.timer ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  untrack(res: ServerResponse): void {
    this.started.delete(res);
  }

  private sweep(): void {
    if (this.started.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const due = performance.now() - this.timeoutMs;
    for (const [res, startedAt] of this.started) {
      if (startedAt > due) return;
      this.started.delete(res);
      this.onCut(res);
      res.destroy();
    }
  }
}
