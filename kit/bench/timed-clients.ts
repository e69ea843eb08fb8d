/** What the load workers share: `concurrency` clients over one keep-alive agent, looping until a deadline. */
import http from 'node:http';

export interface TimedRun {
  concurrency: number;
  /** Requests started before `warmupMs` has passed are not measured. */
  warmupMs: number;
  durationMs: number;
}

/** The measured window: a request counts when it starts at or after `measureFrom` and ends by `end`. */
export interface Window {
  measureFrom: number;
  end: number;
}

/** Runs `client(index, agent, window)` `concurrency` times at once and waits for them all; each loops until `window.end`. */
export async function runTimedClients(run: TimedRun, client: (index: number, agent: http.Agent, window: Window) => Promise<void>): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.concurrency });
  const measureFrom = performance.now() + run.warmupMs;
  const window = { measureFrom, end: measureFrom + run.durationMs };
  try {
    await Promise.all(Array.from({ length: run.concurrency }, (_, i) => client(i, agent, window)));
  } finally {
    agent.destroy();
  }
}

/** The `p`th percentile of ascending `sorted`; NaN when it is empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
}
