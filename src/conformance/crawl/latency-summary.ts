import type { LatencySummary } from './crawl-record';

/** Nearest-rank percentile of ascending-sorted values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

const round = (n: number) => Math.round(n * 10) / 10;

export function summarizeLatency(values: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    count: values.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length ? (sorted[sorted.length - 1] ?? 0) : 0),
    mean: round(values.length ? sum / values.length : 0),
  };
}
