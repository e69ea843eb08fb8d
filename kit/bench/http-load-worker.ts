/**
 * The worker half of `httpLoad`: `concurrency` clients over one keep-alive agent, each looping
 * until the deadline over first pages and nextLink crawls. Not imported by anything; `httpLoad`
 * starts it with its options as `workerData` and receives one `HttpLoadResult` message.
 */
import type http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { httpGet } from './http-get';
import type { HttpLoadOptions, HttpLoadResult } from './http-load';
import { seededRandom } from './seeded-random';
import { percentile, runTimedClients, type Window } from './timed-clients';

async function run(o: HttpLoadOptions): Promise<HttpLoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;

  async function client(index: number, agent: http.Agent, { measureFrom, end }: Window): Promise<void> {
    const random = seededRandom(o.seed * 1000 + index);
    const pick = (list: readonly string[]): string => list[Math.floor(random() * list.length)] as string;
    let next: string | undefined;
    let left = 0;
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      let target: string;
      if (next !== undefined && left > 0) {
        target = next;
      } else if (o.crawlStarts.length === 0 || random() < o.firstPageShare) {
        target = pick(o.firstPaths);
        left = 1;
      } else {
        target = pick(o.crawlStarts);
        left = o.crawlPages;
      }
      next = undefined;
      left -= 1;
      let ok = false;
      let size = 0;
      try {
        const res = await httpGet(`${o.baseUrl}${target}`, agent, o.headers);
        size = res.body.length;
        if (res.status === 200) {
          const body = JSON.parse(res.body.toString('utf8')) as { '@odata.nextLink'?: string };
          const link = body['@odata.nextLink'];
          // Follow the link's path on whichever server is under test (the baseline echoes a gateway body).
          if (link && left > 0) {
            const u = new URL(link);
            next = `${u.pathname}${u.search}`;
          }
          ok = true;
        }
      } catch {
        ok = false;
      }
      const t1 = performance.now();
      if (t0 >= measureFrom && t1 <= end) {
        if (ok) {
          latencies.push(t1 - t0);
          bytes += size;
        } else {
          errors += 1;
        }
      }
    }
  }

  await runTimedClients(o, client);
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: (latencies.length * 1000) / o.durationMs,
    bytes,
    latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99) },
  };
}

run(workerData as HttpLoadOptions).then(
  (result) => parentPort?.postMessage(result),
  (error: unknown) => {
    throw error;
  },
);
