/**
 * `tsx kit/bench/profile-request.ts [--path <path>] [--seconds <n>] [--files <n>] [--out <file>]`:
 * serves the bench gateway (or, with `--bare`, a bare node:http server answering the gateway's
 * bytes) over a small staged corpus, drives it with the bench's keep-alive client loop (in a
 * worker thread) and records a V8 CPU profile of the server thread over the measured window only
 * (start-up, staging and warm-up left out). `kit/bench/summarize-cpu-profile.ts` reads the profile.
 */
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { httpGet } from './http-get';
import { measureLoad } from './measure-load';
import { startBareServer } from './start-bare-server';
import { stageFiles } from './stage-files';
import { AUTH_HEADERS, benchPostgresUrl, startBenchGateway } from './start-bench-gateway';

const HELP = `usage: tsx kit/bench/profile-request.ts [options]

  --path <path>     request path to load (default /v1/files/permissions/metadata; 'file' = GET one staged file)
  --seconds <n>     measured seconds of load after a 3 s warm-up (default 10)
  --files <n>       files staged first (default 2000)
  --concurrency <n> keep-alive clients (default 20)
  --out <file>      where the .cpuprofile goes (default: none, only the figures)
  --postgres        serve from Postgres (BENCH_DATABASE_URL or TEST_DATABASE_URL; a schema of its own)
  --bare            profile a bare node:http server answering the gateway's bytes instead
  --help            this text`;

function option(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

/** Runs `during` under the inspector's CPU profiler, from `afterMs` on, and returns the profile. */
async function profiled<T>(afterMs: number, during: Promise<T>): Promise<{ result: T; profile: unknown }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const started = new Promise<void>((resolve) => setTimeout(() => void session.post('Profiler.start').then(() => resolve()), afterMs));
  const result = await during;
  await started;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return { result, profile };
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes('--help')) {
    console.log(HELP);
    return;
  }
  const seconds = Number(option(argv, '--seconds') ?? 10);
  const files = Number(option(argv, '--files') ?? 2000);
  const out = option(argv, '--out');
  const postgresUrl = argv.includes('--postgres') ? benchPostgresUrl() : undefined;
  if (argv.includes('--postgres') && !postgresUrl) throw new Error('--postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const gateway = await startBenchGateway(postgresUrl ? { postgresUrl } : {});
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  try {
    await stageFiles(gateway.db, files);
    let path = option(argv, '--path') ?? '/v1/files/permissions/metadata';
    if (path === 'file') {
      const row = (await gateway.db('files').where({ status: 'active' }).orderBy('id').first('id')) as { id: string };
      path = `/v1/files/${encodeURIComponent(row.id)}`;
    }
    let baseUrl = gateway.url;
    if (argv.includes('--bare')) {
      const agent = new http.Agent({ keepAlive: true });
      const { body, headers } = await httpGet(`${gateway.url}${path}`, agent, { ...AUTH_HEADERS });
      agent.destroy();
      bare = await startBareServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': String(headers['content-type']), 'Content-Length': body.length });
        res.end(body);
      });
      baseUrl = bare.url;
    }
    const warmupMs = 3000;
    const load = measureLoad({
      baseUrl,
      headers: { ...AUTH_HEADERS },
      firstPaths: [path],
      crawlStarts: [],
      firstPageShare: 1,
      crawlPages: 1,
      concurrency: Number(option(argv, '--concurrency') ?? 20),
      warmupMs,
      durationMs: seconds * 1000,
      seed: 1,
    });
    // The profiler costs the server time of its own: figures taken with it are not comparable.
    const { result: run, profile } = out ? await profiled(warmupMs, load) : { result: await load, profile: undefined };
    if (out) fs.writeFileSync(out, JSON.stringify(profile));
    const busyUs = (run.serverElu * seconds * 1e6) / run.requests;
    const cpuUs = run.serverCpuUs;
    console.log(
      `${bare ? 'bare server' : 'gateway'} ${path}: ${run.requests} requests, ${run.errors} errors, ${run.rps.toFixed(0)} req/s, server thread ${(run.serverElu * 100).toFixed(0)} % busy = ${busyUs.toFixed(1)} µs a request by wall clock, ${cpuUs.toFixed(1)} µs of server-thread CPU${out ? `; profile in ${out}` : ''}`,
    );
  } finally {
    await bare?.close();
    await gateway.close();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
