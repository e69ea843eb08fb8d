import fs from 'node:fs';
import inspector from 'node:inspector';
import { BenchContext } from './bench-context';
import { httpLoad } from './http-load';
import { AUTH_HEADERS } from './start-bench-gateway';

async function main(): Promise<void> {
  const ctx = new BenchContext(100_000);
  const { gateway } = await ctx.stagedGateway();
  const byId = await ctx.skipTokens('');
  const byMod = await ctx.skipTokens('last_modified_datetime');
  const session = new inspector.Session();
  session.connect();
  const post = (m: string, p?: object): Promise<unknown> => new Promise((res, rej) => session.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  const r = await httpLoad({
    baseUrl: gateway.url, headers: AUTH_HEADERS as Record<string, string>,
    firstPaths: ['/v1/files?$top=100', '/v1/files?$top=100&$orderby=last_modified_datetime'],
    crawlStarts: [...byId, ...byMod].map((t) => `/v1/files?$top=100&$skiptoken=${t}`),
    firstPageShare: 0.25, crawlPages: 5, concurrency: 20, warmupMs: 500, durationMs: 5000, seed: 1,
  });
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  fs.writeFileSync('/tmp/prof/load.cpuprofile', JSON.stringify(profile));
  console.log(r);
  await ctx.close();
  process.exit(0);
}
void main();
