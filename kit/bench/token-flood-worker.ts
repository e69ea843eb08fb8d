/**
 * The worker half of `token-flood`: in `download` mode one keep-alive client downloads a file
 * again and again and reports the latencies measured after the warm-up; in `flood` mode
 * `concurrency` clients POST wrong client secrets to `/oauth2/token` back to back, each sending
 * its next request as soon as the last is answered, until the deadline, and report the statuses
 * they got. Not imported by anything; `tokenFlood` starts it with a `TokenFloodJob` as workerData.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { percentile, runTimedClients, type Window } from './timed-clients';
import type { TokenFloodJob, TokenFloodReport } from './token-flood';

function request(
  url: string,
  agent: http.Agent,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method, headers: options.headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

async function run(job: TokenFloodJob): Promise<TokenFloodReport> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;

  async function client(index: number, agent: http.Agent, { measureFrom, end }: Window): Promise<void> {
    for (let i = 0; ; i += 1) {
      const t0 = performance.now();
      if (t0 >= end) return;
      try {
        const res =
          job.mode === 'download'
            ? await request(`${job.baseUrl}${job.downloadPath}`, agent, { method: 'GET', headers: job.headers })
            : await request(`${job.baseUrl}/oauth2/token`, agent, {
                method: 'POST',
                headers: {
                  'Content-Type': 'application/x-www-form-urlencoded',
                  Authorization: `Basic ${Buffer.from(`${job.clientId}:wrong-secret-${index}-${i}`).toString('base64')}`,
                },
                body: 'grant_type=client_credentials',
              });
        const t1 = performance.now();
        if (t0 >= measureFrom && t1 <= end) {
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (job.mode === 'download') {
            if (res.status === 200 && res.bytes === job.expectedBytes) latencies.push(t1 - t0);
            else errors += 1;
          }
        }
      } catch {
        errors += 1;
      }
    }
  }

  await runTimedClients(job, client);
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    statuses,
    latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99) },
  };
}

run(workerData as TokenFloodJob).then(
  (report) => parentPort?.postMessage(report),
  (error: unknown) => {
    throw error;
  },
);
