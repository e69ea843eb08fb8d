/**
 * `WEB_CONCURRENCY` as a number of serving processes: `auto` is one per CPU in production
 * (`cpus`: `os.availableParallelism()`), else 1, so development keeps one process to debug.
 */
export function resolveWebConcurrency(setting: 'auto' | number, production: boolean, cpus: number): number {
  if (setting !== 'auto') return setting;
  return production ? Math.max(1, cpus) : 1;
}

/**
 * One worker's share of a limit that holds for the whole host (`0`: no limit, for everyone):
 * the limit divided between `workers`, rounded down so the shares never add up to more, but at
 * least 1 so every worker can serve.
 */
export function shareOf(limit: number, workers: number): number {
  if (limit <= 0 || workers <= 1) return limit;
  return Math.max(1, Math.floor(limit / workers));
}

/**
 * Postgres connections one of `workers` serving processes opens, of `DATABASE_MAX_CONNECTIONS`
 * (`budget`): its share, but at least 2 (a list page's statement need not wait behind a sync's
 * or a download's), so the workers exceed the budget only where it is under 2 a worker.
 */
export function serveConnections(budget: number, workers: number): number {
  return Math.max(2, shareOf(budget, workers));
}
