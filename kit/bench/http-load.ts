import { spawnModuleWorker } from 'content-gateway/lib';
import { workerResult } from './worker-result';

export interface HttpLoadOptions {
  baseUrl: string;
  headers: Record<string, string>;
  /** Paths (with query) of first pages; a client picks one at random. */
  firstPaths: string[];
  /** Paths that start a crawl somewhere in the collection; the client then follows `@odata.nextLink`. */
  crawlStarts: string[];
  /** Share of sequences that are a lone first page rather than a crawl (0..1). */
  firstPageShare: number;
  /** Pages a crawl fetches (its start included) before the client picks a new sequence. */
  crawlPages: number;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  seed: number;
}

export interface HttpLoadResult {
  /** Requests started after the warm-up and answered within the window. */
  requests: number;
  errors: number;
  rps: number;
  bytes: number;
  latencyMs: { p50: number; p90: number; p99: number };
}

/**
 * Runs the keep-alive client loop in a worker thread, so the server under test has the main
 * thread (and one of the two cores) to itself and the clients' own work stays off its clock.
 * The worker is TypeScript: it loads through tsx's CommonJS hook, as the runner itself does.
 */
export function httpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  return workerResult<HttpLoadResult>(spawnModuleWorker(__filename, 'http-load-worker', { workerData: options }), 'http-load');
}
