import http from 'node:http';
import { startSimulator, type RunningSimulator } from './simulator-harness';

/** A simulator whose assistant has answered a few people, so plugin-resources exist; Data API pages of 3; the tenant in `dataRegion`. */
export async function simulatorWithRecords(dataRegion = 'us'): Promise<RunningSimulator> {
  const p = await startSimulator({ now: () => Date.UTC(2025, 3, 1), settings: { dataPageSize: 3, dataRegion } });
  for (const [email, q] of [
    ['ada@example.test', 'the office cluster upgrade on-call expenses holidays welcome'],
    ['ben@example.test', 'offsite lisbon expenses'],
    ['cai@example.test', 'salary bands board'],
    ['dee@example.test', 'welcome holidays expenses'],
    ['ada@example.test', 'holidays office'],
  ] as const) {
    await p.ask(email, q);
    await p.sim.advanceClock(1000);
  }
  return p;
}

/** Follows `@odata.nextLink` verbatim to the end. */
export async function followAll(p: RunningSimulator, first: string, headers: Record<string, string>): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let url: string | undefined = first;
  let pages = 0;
  while (url) {
    const res: any = await p.call(url, { headers });
    if (res.status !== 200) throw new Error(`${url} → ${res.status} ${res.text}`);
    items.push(...res.body.value);
    pages++;
    url = res.body['@odata.nextLink'];
    if (pages > 500) throw new Error('endless');
  }
  return { items, pages };
}

/** A GET with an explicit Host header (fetch may not set it). */
export function getWithHost(origin: string, path: string, host: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: u.hostname, port: u.port, path, headers: { ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.end();
  });
}
