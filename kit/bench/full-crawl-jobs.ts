import type { CrawlStats } from 'content-gateway/conformance';
import { spawnModuleWorker } from 'content-gateway/lib';
import { workerResult } from './worker-result';

/** The conformance crawler's walk (no probes, no second or odd-`$top` crawl) against `baseUrl`. */
export interface CrawlJob {
  mode: 'crawl';
  baseUrl: string;
  key: string;
  concurrency: number;
}

/** The given URLs, in order, by a bare keep-alive client with `concurrency` requests in flight. */
export interface ReplayJob {
  mode: 'replay';
  urls: string[];
  key: string;
  concurrency: number;
}

export type FullCrawlJob = CrawlJob | ReplayJob;

export interface CrawlOutcome {
  /** The crawler's own recorder: first request sent to last answer read. */
  stats: CrawlStats;
  /** Every request of the walk, rebuilt from the crawl record (see the worker). */
  urls: string[];
  files: number;
  downloads: number;
  downloadsOk: number;
  users: number;
  groups: number;
  notableListings: number;
  /** The crawler's phase-end log lines, ms after `runConformance` was called. */
  phases: Array<{ msg: string; ms: number }>;
  /** `runConformance` as a whole: contract loading, the crawl, the checks and the report. */
  workerMs: number;
  failedChecks: string[];
  warnedChecks: string[];
  firstFindings: string[];
}

export interface ReplayOutcome {
  requests: number;
  bytes: number;
  durationMs: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number };
  statusCounts: Record<string, number>;
}

/**
 * Runs one job in a worker thread (TypeScript, loaded through tsx's CommonJS hook as `httpLoad`
 * does), so the gateway keeps the main thread and the client's work runs beside it.
 */
export function runFullCrawlWorker(job: CrawlJob): Promise<CrawlOutcome>;
export function runFullCrawlWorker(job: ReplayJob): Promise<ReplayOutcome>;
export function runFullCrawlWorker(job: FullCrawlJob): Promise<CrawlOutcome | ReplayOutcome> {
  return workerResult<CrawlOutcome | ReplayOutcome>(spawnModuleWorker(__filename, 'full-crawl-worker', { workerData: job }), `full-crawl ${job.mode}`);
}
