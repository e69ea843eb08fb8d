import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, µs) the calling process's main thread has used, from Linux's
 * /proc/self/task/<pid>/stat (clock ticks, 10 ms each); undefined elsewhere. Unlike event-loop
 * utilisation, which counts wall-clock time and so grows when other processes take the CPU, this
 * counts only what the thread itself ran: the server's own cost, even on a busy machine.
 */
export function mainThreadCpuUs(): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may hold spaces): utime is 14th, stime 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1e6) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
