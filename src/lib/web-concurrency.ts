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
