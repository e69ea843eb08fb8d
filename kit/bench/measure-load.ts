import type { EventLoopUtilization } from 'node:perf_hooks';
import { httpLoad, type HttpLoadOptions, type HttpLoadResult } from './http-load';
import { mainThreadCpuUs } from './thread-cpu';

export interface LoadRun extends HttpLoadResult {
  serverElu: number;
  /** CPU time of the whole process (server thread and client worker) per request, µs. */
  cpuUs: number;
  /** CPU time of the server thread alone per request, µs (NaN where /proc is missing): what a request costs the server, however busy the machine. */
  serverCpuUs: number;
}

/**
 * `httpLoad` (the list-throughput client loop) with, over the measured window, the server
 * thread's event-loop utilisation and the process's CPU time (which, unlike wall-clock figures,
 * other processes on the machine do not inflate).
 */
export async function measureLoad(config: HttpLoadOptions): Promise<LoadRun> {
  let from: EventLoopUtilization | undefined;
  let elu: EventLoopUtilization | undefined;
  let cpuFrom: NodeJS.CpuUsage | undefined;
  let cpu: NodeJS.CpuUsage | undefined;
  let threadFrom: number | undefined;
  let thread: number | undefined;
  const t1 = setTimeout(() => {
    from = performance.eventLoopUtilization();
    cpuFrom = process.cpuUsage();
    threadFrom = mainThreadCpuUs();
  }, config.warmupMs);
  const t2 = setTimeout(() => {
    if (from) elu = performance.eventLoopUtilization(from);
    if (cpuFrom) cpu = process.cpuUsage(cpuFrom);
    const threadTo = mainThreadCpuUs();
    if (threadFrom !== undefined && threadTo !== undefined) thread = threadTo - threadFrom;
  }, config.warmupMs + config.durationMs);
  try {
    const result = await httpLoad(config);
    return {
      ...result,
      serverElu: elu?.utilization ?? Number.NaN,
      cpuUs: cpu ? (cpu.user + cpu.system) / result.requests : Number.NaN,
      serverCpuUs: thread !== undefined ? thread / result.requests : Number.NaN,
    };
  } finally {
    clearTimeout(t1);
    clearTimeout(t2);
  }
}
