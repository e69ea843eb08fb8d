import os from 'node:os';

/**
 * The machine's 1-minute load average before and after a benchmark, beside its CPU count, for
 * judging wall-clock figures: the benchmark itself accounts for about two (server thread and
 * client worker, or the sync); more means other work competed for the cores.
 */
export function loadNote(before: number): string {
  const after = os.loadavg()[0] ?? 0;
  return `load average (1 min) ${before.toFixed(2)} before, ${after.toFixed(2)} after, on ${os.cpus().length} CPUs (this benchmark accounts for about 2)`;
}
